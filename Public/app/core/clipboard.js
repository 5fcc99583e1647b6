// Copying a link to the clipboard, on every page that offers one (the console, the moderator).

import { el } from './ui.js';

/** Copies text to the clipboard (with the old way for plain http on a LAN address); true when it did. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    // Plain http on a LAN address has no clipboard API: the old way.
    const field = el('textarea', { attrs: { readonly: true, 'aria-hidden': 'true' } });
    field.value = text;
    field.className = 'visually-hidden';
    document.body.append(field);
    field.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (_) {
      ok = false;
    }
    field.remove();
    return ok;
  }
}
