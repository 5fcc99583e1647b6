// The wait after wrong passcodes, counted down on a join screen: the server's `retryAfter`
// seconds (docs/protocol.md, "Wrong passcodes") as "Wrong passcode. Try again in 4 s.", with the
// join button off ("Wait 4 s") until the wait is over. Used by every page with a passcode gate:
// the session viewer (sessions/view.js) and a room's presenter (rooms/presenter.js) through their
// join gate (live/join-gate.js), and the big screens' (stage/big-screen.js).
//
// State for tests: the message's data-retry-after (the seconds left, absent when nothing to wait).

import { t } from '../core/i18n.js';

const timers = new WeakMap(); // message element -> its countdown's interval

/**
 * Says `text` in `message`; with `wait` seconds, adds "Try again in N s." counting down each
 * second, and keeps `button` disabled meanwhile, reading "Wait N s"; at the end (or with no
 * wait) the message is `text` alone and the button is on again, reading `label`. A new call on
 * the same message replaces the countdown running there.
 *
 * @param {HTMLElement} message
 * @param {string} text
 * @param {object} [o]
 * @param {number} [o.wait]          seconds to wait (0: none)
 * @param {HTMLButtonElement} [o.button]
 * @param {string} [o.label]         the button's words once it may be pressed again
 */
export function showRetry(message, text, { wait = 0, button = null, label = null } = {}) {
  stopRetry(message);
  const until = Date.now() + Math.max(0, Number(wait) || 0) * 1000;
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left > 0) {
      message.textContent = t('common.retry-again-in', { text, seconds: left });
      message.dataset.retryAfter = String(left);
      if (button) {
        button.disabled = true;
        button.textContent = t('common.retry-wait', { seconds: left });
      }
      return;
    }
    stopRetry(message);
    message.textContent = text;
    if (button) {
      button.disabled = false;
      if (label !== null) button.textContent = label;
    }
  };
  tick();
  if (message.dataset.retryAfter) timers.set(message, setInterval(tick, 250));
}

/** Ends a countdown on `message` (its text stays); nothing when there is none. */
export function stopRetry(message) {
  clearInterval(timers.get(message));
  timers.delete(message);
  delete message.dataset.retryAfter;
}

/**
 * What a join screen says when a hello is refused for the passcode: `passcode_wrong` or
 * `rate_limited`, with or without a wait (the countdown adds "Try again in N s."); null for any
 * other error.
 */
export function passcodeRefusal(code, retryAfter = 0) {
  if (code === 'passcode_wrong') return retryAfter ? t('common.retry-wrong-passcode') : t('errors.passcode_wrong');
  if (code === 'rate_limited') return retryAfter ? t('common.retry-too-many') : t('common.retry-too-many-wait');
  return null;
}
