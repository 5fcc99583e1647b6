// Single sign-on on the sign-in page: a "Sign in with <name>" button when the server has an
// OpenID provider (the options of GET /api/v1/auth/options, which login.js reads), and, back
// from a sign-in there that failed (/login?sso_error=<code>), why, in the person's language.

import { has, language, t } from '../core/i18n.js';

const params = new URLSearchParams(location.search);

const failure = params.get('sso_error');
if (failure) {
  const line = document.getElementById('sso-error');
  const key = `login.sso-error-${failure}`;
  line.textContent = t(has(key) ? key : 'login.sso-error-failed');
  line.hidden = false;
}

/** Shows the button when `options` (the server's sign-in options) name a provider. */
export function showSingleSignOn(options) {
  const sso = options.singleSignOn;
  if (!sso) return;
  const button = document.getElementById('sso-button');
  button.textContent = t('login.sso-button', { name: sso.name });
  // Where to go once signed in (the server accepts only a path of this site).
  const start = new URL(sso.start, location.origin);
  const next = params.get('next');
  if (next) start.searchParams.set('next', next);
  // The page's language: the account keeps it for the mail it is sent (an admin's notices).
  start.searchParams.set('lang', language);
  button.href = start.pathname + start.search;
  document.getElementById('sso').hidden = false;
}
