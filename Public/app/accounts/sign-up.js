// Self sign-up (when the server allows it): the visitor asks for an account; the message's link
// (/sign-up#token=…) confirms the address; an admin then approves it.

import { language, t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { startPage } from '../core/page.js';
import { accountErrorText, clearErrors, fieldError, looksLikeEmail, takeToken } from './common.js';

const lead = document.getElementById('sign-up-lead');
const form = document.getElementById('sign-up-form');
const email = document.getElementById('sign-up-email');
const name = document.getElementById('sign-up-name');
const password = document.getElementById('sign-up-password');
const error = document.getElementById('sign-up-error');
const submit = document.getElementById('sign-up-submit');
const done = document.getElementById('sign-up-done');
const doneText = document.getElementById('sign-up-done-text');
const token = takeToken();

function finish(message, state) {
  form.hidden = true;
  lead.hidden = true;
  doneText.textContent = message;
  done.hidden = false;
  done.dataset.state = state;
  document.body.dataset.ready = 'true';
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(error, email, password);
  const address = email.value.trim();
  if (!looksLikeEmail(address)) {
    fieldError(email, error, t('accounts.error.bad_email'));
    return;
  }
  if (password.value.length < 8) {
    fieldError(password, error, t('accounts.error.weak_password'));
    return;
  }
  submit.disabled = true;
  try {
    await api('/api/v1/auth/sign-up', { method: 'POST', body: { email: address, name: name.value.trim(), password: password.value, language } });
    finish(t('accounts.sign-up.sent', { email: address }), 'link-sent');
  } catch (failure) {
    fieldError(email, error, accountErrorText(failure));
    submit.disabled = false;
  }
});

async function start() {
  if (token) {
    try {
      await api('/api/v1/auth/sign-up/verify', { method: 'POST', body: { token } });
      finish(t('accounts.sign-up.verified'), 'verified');
    } catch (failure) {
      finish(accountErrorText(failure), 'invalid');
    }
    return;
  }
  try {
    const options = await api('/api/v1/auth/options');
    if (!options.signUp) {
      finish(t('accounts.error.sign_up_closed'), 'closed');
      return;
    }
  } catch (failure) {
    finish(accountErrorText(failure), 'invalid');
    return;
  }
  form.hidden = false;
  email.focus();
  document.body.dataset.ready = 'true';
}

startPage(start);
