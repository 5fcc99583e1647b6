// What the dialogs that start something live share (the library's "Go live", "Open a room"): a
// labelled on/off switch with its hint, and the submit that creates the session or room and goes
// on to its console, or says why it could not.

import { errorText } from './i18n.js';
import { el } from './ui.js';

/**
 * A switch row: `input` (a checkbox with role=switch and an id) after its label and, when given,
 * its hint.
 */
export function switchField(input, label, hint = null) {
  return el('label', { class: 'switch', attrs: { for: input.id } }, [
    el('span', { class: hint ? 'switch-text' : null }, [
      el('span', { class: 'field-label', text: label }),
      hint ? el('span', { class: 'field-hint', text: hint }) : null,
    ]),
    input,
  ]);
}

/**
 * On `form`'s submit: clears `error`, turns `start` off, and goes to the address that `create()`
 * resolves with; when it fails, says why in `error` and turns `start` on again.
 */
export function submitToStart(form, { error, start, create }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    start.disabled = true;
    try {
      location.assign(await create());
    } catch (failure) {
      error.textContent = errorText(failure);
      start.disabled = false;
    }
  });
}
