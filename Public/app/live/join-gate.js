// The join screen's form, as the viewer (sessions/view.js) and a room's presenter
// (rooms/presenter.js) have it: a name (required or not), a passcode when the session has one,
// Join; and what the screen says when the server refuses the hello (a wrong passcode counted down
// by live/passcode-wait.js, the passcode asked for, any other reason).

import { showRetry, passcodeRefusal } from './passcode-wait.js';

/**
 * Wires `form`'s submit: clears `error`; asks for the name (`nameRequired`, the words, when it is
 * required) and the passcode (`passcodeMissing`, when `needsPasscode()`), marking the field
 * aria-invalid and focusing it; then calls `onJoin()`.
 *
 * @returns {{refused: (code:string, retryAfter:number, text:string, label:string) => void}}
 *   `refused` says a refused hello on the screen: a passcode refusal with its wait (Join off and
 *   counting down meanwhile), else `text`; the passcode field shown and focused when the passcode
 *   was the reason. `label` is Join's words once it may be pressed again.
 */
export function joinGate({ form, nameInput, passcodeInput, passcodeField, error, button, needsPasscode, nameRequired = null, passcodeMissing, onJoin }) {
  const invalid = (input) => {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    if (nameRequired) nameInput.removeAttribute('aria-invalid');
    passcodeInput.removeAttribute('aria-invalid');
    if (nameRequired && !nameInput.value.trim()) {
      error.textContent = nameRequired;
      invalid(nameInput);
      return;
    }
    if (needsPasscode() && !passcodeInput.value.trim()) {
      error.textContent = passcodeMissing;
      invalid(passcodeInput);
      return;
    }
    onJoin();
  });
  return {
    refused(code, retryAfter, text, label) {
      const refusal = passcodeRefusal(code, retryAfter);
      showRetry(error, refusal || text, { wait: refusal ? retryAfter : 0, button, label });
      if (refusal || code === 'passcode_required') {
        passcodeField.hidden = false;
        invalid(passcodeInput);
        passcodeInput.select();
      }
    },
  };
}
