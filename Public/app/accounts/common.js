// What the account pages share: the token of a link sent by email, and errors said in the
// page's language (the server's codes: link_invalid, weak_password, too_many_attempts, ...).

import { errorText, has, t } from '../core/i18n.js';

/**
 * The `#token=` of the page's address. It is taken off the address at once (the address bar,
 * the history and a screenshot no longer show it); the page keeps it in memory.
 */
export function takeToken() {
  const match = /(?:^#|&)token=([0-9a-f]{64})(?:&|$)/.exec(location.hash);
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  // A link followed into this very page (the same address, another #token) changes only the
  // hash, which loads nothing: start again with the new token.
  window.addEventListener('hashchange', () => {
    if (/(?:^#|&)token=[0-9a-f]{64}/.test(location.hash)) location.reload();
  });
  return match ? match[1] : null;
}

/** An API error as the person reads it. */
export function accountErrorText(error) {
  const code = error && error.code;
  if (code === 'too_many_attempts') {
    const seconds = Number(error.detail && error.detail.retryAfter) || 60;
    return t('accounts.error.too_many_attempts', { seconds: String(seconds) });
  }
  if (code && has('accounts.error.' + code)) return t('accounts.error.' + code);
  return errorText(error);
}

/** Marks `input` wrong with `message` in `errorElement`, and puts the focus on it. */
export function fieldError(input, errorElement, message) {
  errorElement.textContent = message;
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

/** Clears the marks of `fieldError`. */
export function clearErrors(errorElement, ...inputs) {
  errorElement.textContent = '';
  for (const input of inputs) input.removeAttribute('aria-invalid');
}

/** Whether `text` looks like an email address (the server checks it too). */
export function looksLikeEmail(text) {
  return /^[^\s@<>,]+@[^\s@<>,]+$/.test(text);
}
