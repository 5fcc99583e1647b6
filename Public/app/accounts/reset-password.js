// "Forgot password?": without a token, the person asks for a link (the answer is the same for
// every address); with the link's token (/reset-password#token=…), they choose a new password.

import { language, t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { startPage } from '../core/page.js';
import { accountErrorText, clearErrors, fieldError, looksLikeEmail, takeToken } from './common.js';

const heading = document.getElementById('reset-heading');
const lead = document.getElementById('reset-lead');
const askForm = document.getElementById('reset-ask-form');
const email = document.getElementById('reset-email');
const askError = document.getElementById('reset-ask-error');
const askSubmit = document.getElementById('reset-ask-submit');
const setForm = document.getElementById('reset-set-form');
const password = document.getElementById('reset-password');
const setError = document.getElementById('reset-set-error');
const setSubmit = document.getElementById('reset-set-submit');
const done = document.getElementById('reset-done');
const doneText = document.getElementById('reset-done-text');
const signIn = document.getElementById('reset-sign-in');
const token = takeToken();

function finish(message, { showSignIn = false } = {}) {
  askForm.hidden = true;
  setForm.hidden = true;
  lead.hidden = true;
  doneText.textContent = message;
  signIn.hidden = !showSignIn;
  done.hidden = false;
  done.dataset.state = showSignIn ? 'password-set' : 'link-sent';
}

askForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(askError, email);
  const address = email.value.trim();
  if (!looksLikeEmail(address)) {
    fieldError(email, askError, t('accounts.error.bad_email'));
    return;
  }
  askSubmit.disabled = true;
  try {
    await api('/api/v1/auth/password-reset', { method: 'POST', body: { email: address, language } });
    finish(t('accounts.reset.sent', { email: address }));
  } catch (failure) {
    fieldError(email, askError, accountErrorText(failure));
    askSubmit.disabled = false;
  }
});

setForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(setError, password);
  if (password.value.length < 8) {
    fieldError(password, setError, t('accounts.error.weak_password'));
    return;
  }
  setSubmit.disabled = true;
  try {
    await api('/api/v1/auth/password-reset/complete', { method: 'POST', body: { token, password: password.value } });
    finish(t('accounts.reset.done'), { showSignIn: true });
  } catch (failure) {
    fieldError(password, setError, accountErrorText(failure));
    setSubmit.disabled = false;
  }
});

async function start() {
  if (token) {
    heading.textContent = t('accounts.reset.choose-heading');
    lead.textContent = t('accounts.reset.choose-lead');
    setForm.hidden = false;
    password.focus();
  } else {
    // Without a mail relay no link can be sent: say who can help instead of a form that cannot.
    try {
      const options = await api('/api/v1/auth/options');
      if (!options.passwordReset) {
        finish(t('accounts.reset.no-mail'));
        done.dataset.state = 'no-mail';
        document.body.dataset.ready = 'true';
        return;
      }
    } catch (_) {
      // Asked again when the form is sent.
    }
    askForm.hidden = false;
    const given = new URLSearchParams(location.search).get('email');
    if (given) email.value = given;
    email.focus();
  }
  document.body.dataset.ready = 'true';
}

startPage(start);
