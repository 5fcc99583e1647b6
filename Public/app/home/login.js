// Presenter sign in: POST /api/v1/auth/login, then on to the library (or ?next=).

import { t, errorText, language } from '../core/i18n.js';
import { api, currentUser } from '../core/api.js';
import { startPage } from '../core/page.js';
import { accountErrorText } from '../accounts/common.js';
import { showSingleSignOn } from './login-sso.js';

const form = document.getElementById('login-form');
const email = document.getElementById('email');
const password = document.getElementById('password');
const error = document.getElementById('login-error');
const submit = document.getElementById('login-submit');

/** Only same-site paths: never an open redirect. */
function nextPath() {
  const next = new URLSearchParams(location.search).get('next');
  if (next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')) return next;
  return '/library';
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  error.textContent = '';
  email.removeAttribute('aria-invalid');
  password.removeAttribute('aria-invalid');
  if (!email.value.trim()) {
    error.textContent = t('login.enter-email');
    email.setAttribute('aria-invalid', 'true');
    email.focus();
    return;
  }
  if (!password.value) {
    error.textContent = t('login.enter-password');
    password.setAttribute('aria-invalid', 'true');
    password.focus();
    return;
  }
  submit.disabled = true;
  submit.textContent = t('login.signing-in');
  try {
    await api('/api/v1/auth/login', { method: 'POST', body: { email: email.value.trim(), password: password.value, language } });
    location.assign(nextPath());
  } catch (failure) {
    if (failure.status === 401) {
      error.textContent = t('errors.bad_credentials');
      password.setAttribute('aria-invalid', 'true');
      password.select();
    } else if (failure.code === 'too_many_attempts') {
      error.textContent = accountErrorText(failure);
    } else {
      error.textContent = errorText(failure);
    }
    submit.disabled = false;
    submit.textContent = t('login.submit');
  }
});

function start() {
  // Already signed in: go straight on.
  currentUser().then((user) => {
    if (user) location.replace(nextPath());
  }).catch(() => {});
  // Single sign-on and self sign-up, when the server offers them; "Forgot password?" carries
  // the address typed.
  api('/api/v1/auth/options').then((options) => {
    showSingleSignOn(options);
    document.getElementById('sign-up-link').hidden = !options.signUp;
  }).catch(() => {});
  const forgot = document.getElementById('forgot-password');
  forgot.addEventListener('click', () => {
    const typed = email.value.trim();
    if (typed.includes('@')) forgot.href = '/reset-password?email=' + encodeURIComponent(typed);
  });
  email.focus();
}

startPage(start);
