// An invitation's link (/invitation#token=…): shows the invited address, the person chooses a
// name and a password, and is signed in and taken to the library.

import { language, t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { startPage } from '../core/page.js';
import { accountErrorText, clearErrors, fieldError, takeToken } from './common.js';

const form = document.getElementById('invitation-form');
const lead = document.getElementById('invitation-lead');
const email = document.getElementById('invitation-email');
const name = document.getElementById('invitation-name');
const password = document.getElementById('invitation-password');
const error = document.getElementById('invitation-error');
const submit = document.getElementById('invitation-submit');
const token = takeToken();

function unusable(message) {
  form.hidden = true;
  lead.textContent = message;
  lead.dataset.state = 'invalid';
  document.body.dataset.ready = 'true';
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(error, password);
  if (password.value.length < 8) {
    fieldError(password, error, t('accounts.error.weak_password'));
    return;
  }
  submit.disabled = true;
  submit.textContent = t('accounts.invitation.creating');
  try {
    await api('/api/v1/auth/invitation', { method: 'POST', body: { token, name: name.value.trim(), password: password.value, language } });
    location.assign('/library');
  } catch (failure) {
    if (failure.code === 'link_invalid') {
      unusable(t('accounts.invitation.invalid'));
      return;
    }
    fieldError(password, error, accountErrorText(failure));
    submit.disabled = false;
    submit.textContent = t('accounts.invitation.submit');
  }
});

async function start() {
  if (!token) {
    unusable(t('accounts.invitation.invalid'));
    return;
  }
  try {
    const invitation = await api('/api/v1/auth/invitation?token=' + encodeURIComponent(token));
    email.value = invitation.email;
    lead.textContent = t(invitation.role === 'admin' ? 'accounts.invitation.lead-admin' : 'accounts.invitation.lead');
    form.hidden = false;
    name.focus();
    document.body.dataset.ready = 'true';
  } catch (failure) {
    unusable(failure.code === 'link_invalid' ? t('accounts.invitation.invalid') : accountErrorText(failure));
  }
}

startPage(start);
