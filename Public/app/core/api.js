// Podium REST client: JSON in and out, CSRF header on writes, errors as ApiError.

import { t } from './i18n.js';

/** An error answered by the server as {"error":{"code","message"}}, or a network failure. */
export class ApiError extends Error {
  constructor(status, code, message, detail = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    /** The whole `error` object of the body (a membership error's `limit`, `join`, `joinUrl`). */
    this.detail = detail;
  }
}

const WRITE_HEADER = 'X-Podium-Request';

/** Turns a failed response into an ApiError, reading the server's error body when there is one. */
export async function errorFrom(response) {
  let code = 'http_' + response.status;
  // Said in the page's language when the server sent no error body of its own (a proxy's page, say).
  let message = t('errors.http', { status: String(response.status) });
  let detail = null;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
      detail = body.error;
    }
  } catch (_) {
    // Not JSON: keep the status text.
  }
  return new ApiError(response.status, code, message, detail);
}

/**
 * Calls the API. `body` is sent as JSON unless it is a Blob/File/FormData.
 * Resolves with the parsed JSON (or null for 204); rejects with ApiError.
 */
export async function api(path, { method = 'GET', body, headers = {}, signal } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, credentials: 'same-origin', signal };
  if (method !== 'GET' && method !== 'HEAD') init.headers[WRITE_HEADER] = '1';
  if (body !== undefined) {
    if (body instanceof Blob || body instanceof FormData) {
      init.body = body;
    } else {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', t('errors.network'));
  }
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  if (!type.includes('json')) return null;
  return response.json();
}

/** The signed-in user, or null when signed out. Other errors are thrown. */
export async function currentUser() {
  try {
    return await api('/api/v1/me');
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

/** Sends the browser to the sign-in page, coming back here afterwards. */
export function goToLogin() {
  const next = location.pathname + location.search;
  location.assign('/login?next=' + encodeURIComponent(next));
}
