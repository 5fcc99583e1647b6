// What the pages that drive a live session show around their stage (the presenter console, a
// room's moderator and presenter pages): the connection pill, a message in place of the console,
// and ending the session or room after asking.

import { api } from '../core/api.js';
import { confirmDialog, el, toast } from '../core/ui.js';

const PILL = { live: 'pill-live', reconnecting: 'pill-warn', connecting: 'pill-warn', ended: 'pill-ended', failed: 'pill-ended' };

/** The connection's state on <body data-connection> and the pill (#connection, #connection-text) saying `text`. */
export function showConnection(state, text) {
  document.body.dataset.connection = state;
  document.getElementById('connection-text').textContent = text;
  document.getElementById('connection').className = 'pill ' + (PILL[state] || '');
}

/** Shows `box` (the console's message) with a title, a sentence and, when given, a link as a button. */
export function showConsoleMessage(box, title, text, link) {
  const parts = [el('h2', { text: title }), el('p', { text })];
  if (link) parts.push(el('a', { class: 'btn btn-primary', text: link.label, attrs: { href: link.href } }));
  box.replaceChildren(el('div', {}, parts));
  box.hidden = false;
}

/**
 * Wires `button` to end the session `code` once the presenter confirms (`confirm`: the dialog's
 * title, message and confirmLabel): over the socket when it is open (`live()`), else by
 * POST …/end. `ended()` when it is over (or was already); when it failed, the button is on again
 * and `failed(error)` says why.
 */
export function wireEndButton(button, { code, live, confirm, ended, failed }) {
  button.addEventListener('click', async () => {
    const ok = await confirmDialog({ ...confirm, danger: true });
    if (!ok) return;
    button.disabled = true;
    try {
      const client = live();
      if (client && client.isOpen) await client.send({ type: 'end' });
      else await api('/api/v1/sessions/' + encodeURIComponent(code) + '/end', { method: 'POST' });
      ended();
    } catch (error) {
      if (error && error.code === 'ended') {
        ended();
        return;
      }
      button.disabled = false;
      failed(error);
    }
  });
}

/** Toasts the refusals of what was not a command of ours (a pointer move): commands say theirs where they were sent. */
export function toastOtherRejections(live, errorText) {
  live.addEventListener('rejected', (event) => {
    if (!event.detail.id && event.detail.message) toast(errorText(event.detail), { kind: 'error' });
  });
}

/**
 * A refused command as an error toast in `errorText`'s words; not `unavailable`, which the save
 * banner says across the stage until the server saves again. With `wordless: false`, a refusal
 * with neither a code nor a message is not said either.
 */
export function toastRefusal(errorText, { wordless = true } = {}) {
  return (error) => {
    if (error && error.code === 'unavailable') return;
    if (!wordless && !(error && (error.code || error.message))) return;
    toast(errorText(error), { kind: 'error' });
  };
}
