// Resumable uploads (issue #41): the browser's side of Podium's tus 1.0.0 protocol
// (/api/v1/uploads, docs/api.md and Public/openapi.yaml). A file is created as an upload
// (POST with Upload-Length and Upload-Metadata), then sent in PATCHes of at most `chunkBytes`
// from the offset the server holds. A network error is met with HEAD and the rest from the
// offset it gives, after 1, 2, 4, 8, 8 … s (about a minute in all); the upload's address is
// remembered in localStorage (`podium.uploads`, fingerprint → {url, expires}), so the same file
// chosen again after a reload or a crash continues where the server stopped. An entry goes when
// its upload finishes or is refused, when the server no longer has it (404, 410), and once past
// the server's `Upload-Expires` (pruneUploads tidies entries of files never chosen again). The last PATCH's answer is the
// one-shot route's (a deck, a video, a room's deck).
//
// Nothing here reads the page or its language (the uploader, media/uploader.js, says things in
// words): the requests go through `request`, time through `sleep`, the memory through `storage`,
// so node tests (Tests/JS/resumable.test.mjs) drive it with a fake server.

export const TUS_VERSION = '1.0.0';
export const UPLOADS_URL = '/api/v1/uploads';
export const STORE_KEY = 'podium.uploads';
export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

/** The waits (ms) before each new try after a network error: 1, 2, 4, 8, 8 … s until about a minute has gone. */
export function backoffSchedule(totalMs = 60_000, firstMs = 1000, maxMs = 8000) {
  const delays = [];
  let sum = 0;
  for (let delay = firstMs; sum < totalMs; delay = Math.min(maxMs, delay * 2)) {
    delays.push(delay);
    sum += delay;
  }
  return delays;
}

/** A string as base64 of its UTF-8 bytes (tus metadata values). */
export function base64(text) {
  const bytes = new TextEncoder().encode(String(text));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The UTF-8 text of a base64 string. */
export function unbase64(value) {
  const binary = atob(value);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** `Upload-Metadata` of {key: value}: "key base64,key base64"; null, undefined and '' values left out. */
export function encodeMetadata(fields) {
  return Object.entries(fields)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([key, value]) => key + ' ' + base64(value))
    .join(',');
}

/** The {key: value} of an `Upload-Metadata` header (a key without a value reads as ''). */
export function decodeMetadata(header) {
  const fields = {};
  for (const pair of String(header || '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) fields[key] = value ? unbase64(value) : '';
  }
  return fields;
}

/** An offset or length header as a whole number, or null when absent or not a plain integer. */
export function parseOffset(header) {
  if (header === null || header === undefined) return null;
  const text = String(header).trim();
  if (!/^\d{1,16}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** The `Upload-Expires` date (RFC 9110), or null. */
export function parseExpires(header) {
  if (!header) return null;
  const date = new Date(header);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The upload's address from a 201's `Location`, relative to the page: an absolute path stays
 * as it is, a full URL of this origin becomes its path.
 */
export function uploadURL(location, origin = globalThis.location ? globalThis.location.origin : '') {
  if (!location) return null;
  try {
    const url = new URL(location, origin || 'http://localhost');
    if (origin && url.origin !== origin) return null;
    return url.pathname + url.search;
  } catch (_) {
    return null;
  }
}

/**
 * What says "the same file to the same place": the target, the file's name, size and last
 * change, and where it goes (the folder, or the room's code and `as`). Two picks of one file
 * for one place have one fingerprint; anything else another.
 */
export function fingerprint({ target, name, size, lastModified, folderId = null, session = null, as = null }) {
  return ['tus', target, name, size, lastModified || 0, folderId || '', session || '', as || ''].map(String).join('|');
}

/**
 * The remembered uploads in `storage` (localStorage): {fingerprint: {url, expires}}, `expires`
 * the server's `Upload-Expires` in ms (null when not known: an entry written before it was kept).
 * {} when none or unreadable.
 */
export function rememberedEntries(storage) {
  let value;
  try {
    value = JSON.parse((storage && storage.getItem(STORE_KEY)) || '{}');
  } catch (_) {
    return {};
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const entries = {};
  for (const [print, entry] of Object.entries(value)) {
    if (typeof entry === 'string') entries[print] = { url: entry, expires: null };
    else if (entry && typeof entry.url === 'string') entries[print] = { url: entry.url, expires: Number.isFinite(entry.expires) ? entry.expires : null };
  }
  return entries;
}

/** The remembered uploads' addresses: {fingerprint: URL}. */
export function rememberedUploads(storage) {
  return Object.fromEntries(Object.entries(rememberedEntries(storage)).map(([print, entry]) => [print, entry.url]));
}

function writeUploads(storage, uploads) {
  try {
    if (!storage) return;
    if (Object.keys(uploads).length) storage.setItem(STORE_KEY, JSON.stringify(uploads));
    else storage.removeItem(STORE_KEY);
  } catch (_) {
    // Storage full or refused (a private window): the upload still goes, only not across a reload.
  }
}

/** Remembers `print`'s upload at `url`, which the server keeps until `expires` (a Date, ms, or null). */
export function remember(storage, print, url, expires = null) {
  const ms = expires instanceof Date ? expires.getTime() : Number.isFinite(expires) ? expires : null;
  writeUploads(storage, { ...rememberedEntries(storage), [print]: { url, expires: ms } });
}

export function forget(storage, print) {
  const uploads = rememberedEntries(storage);
  if (!(print in uploads)) return;
  delete uploads[print];
  writeUploads(storage, uploads);
}

/** Forgets the uploads the server has let expire (by their `Upload-Expires`); the fingerprints dropped. */
export function forgetExpired(storage, now = Date.now()) {
  const uploads = rememberedEntries(storage);
  const dropped = Object.keys(uploads).filter((print) => uploads[print].expires !== null && uploads[print].expires <= now);
  if (dropped.length) {
    for (const print of dropped) delete uploads[print];
    writeUploads(storage, uploads);
  }
  return dropped;
}

/**
 * Tidies the remembered uploads (a page that uploads calls it once): the expired ones go, and
 * each one whose expiry is not known is asked (HEAD): gone (404, 410, 403) or finished (every byte
 * there) it goes, else its expiry is kept. A lost connection leaves an entry as it is.
 */
export async function pruneUploads({ storage = globalThis.localStorage, request = xhrRequest, now = Date.now } = {}) {
  forgetExpired(storage, now());
  for (const [print, entry] of Object.entries(rememberedEntries(storage))) {
    if (entry.expires !== null) continue;
    let response;
    try {
      response = await request('HEAD', entry.url, { headers: { 'Tus-Resumable': TUS_VERSION, 'X-Podium-Request': '1' } });
    } catch (_) {
      continue;
    }
    const offset = parseOffset(response.header('Upload-Offset'));
    const length = parseOffset(response.header('Upload-Length'));
    const expires = parseExpires(response.header('Upload-Expires'));
    if ([403, 404, 410].includes(response.status) || (response.status === 200 && offset !== null && offset === length)) {
      forget(storage, print);
    } else if (response.status === 200 && expires) {
      remember(storage, print, entry.url, expires);
    }
  }
}

/** An error of the upload: `code` as the server's (`network` when the connection was lost for good). */
export class UploadError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.name = 'UploadError';
    this.status = status;
    this.code = code;
  }
}

/** The one-shot route's body from a finished upload's: the library's {item, jobId} unwrapped to the item with its jobId. */
export function resultBody(body) {
  if (body && typeof body === 'object' && body.item && typeof body.item === 'object' && !Array.isArray(body.item)) {
    return body.jobId ? { ...body.item, jobId: body.jobId } : { ...body.item };
  }
  return body;
}

function parseJSON(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch (_) {
    return null;
  }
}

/** The error a refusal carries: the server's {error: {code, message}}, or the status alone. */
export function refusal(response) {
  const body = parseJSON(response.body);
  if (body && body.error) return new UploadError(response.status, body.error.code || 'http_' + response.status, body.error.message);
  return new UploadError(response.status, response.status === 413 ? 'too_large' : 'http_' + response.status, null);
}

/** Statuses that say "not now" rather than "no": tried again like a lost connection. */
const TRANSIENT = new Set([0, 408, 423, 429, 502, 503, 504]);

/**
 * One request with XMLHttpRequest (upload progress, which fetch cannot report). Resolves with
 * {status, header(name), body}; rejects with an UploadError `network` when no answer came.
 */
export function xhrRequest(method, url, { headers = {}, body = null, onProgress = null } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    if (onProgress) xhr.upload.addEventListener('progress', (event) => onProgress(event.loaded));
    xhr.addEventListener('load', () => resolve({ status: xhr.status, header: (name) => xhr.getResponseHeader(name), body: xhr.responseText }));
    xhr.addEventListener('error', () => reject(new UploadError(0, 'network')));
    xhr.addEventListener('timeout', () => reject(new UploadError(0, 'network')));
    xhr.addEventListener('abort', () => reject(new UploadError(0, 'aborted')));
    xhr.send(body);
  });
}

const realSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `file` as a resumable upload and resolves with the one-shot route's answer.
 *
 * @param {Blob & {name, lastModified}} file
 * @param {object} o
 * @param {string} o.target  deck | video | room-deck | room-video
 * @param {object} [o.metadata]  filename, title, folderId, session, as (filename defaults to the file's name)
 * @param {number} [o.chunkBytes]  the most one PATCH carries (8 MiB)
 * @param {function(number)} [o.onProgress]  the fraction (0..1) the server holds or is receiving
 * @param {function(number)} [o.onResume]  a remembered upload continues at this fraction (> 0)
 * @param {function(number)} [o.onRetry]  the connection was lost: trying again in this many seconds (counted down)
 * @param {Storage} [o.storage]  where uploads are remembered (localStorage)
 * @param {function} [o.request]  (method, url, {headers, body, onProgress}) → {status, header(name), body}
 * @param {function(number): Promise} [o.sleep]
 * @param {number[]} [o.backoff]  the waits (ms) before each new try
 * @param {function(): number} [o.now]  the time (ms), to forget uploads the server has let expire
 */
export async function resumableUpload(file, {
  target, metadata = {}, chunkBytes = DEFAULT_CHUNK_BYTES, onProgress = () => {}, onResume = () => {}, onRetry = () => {},
  storage = globalThis.localStorage, request = xhrRequest, sleep = realSleep, backoff = backoffSchedule(), endpoint = UPLOADS_URL,
  now = Date.now,
} = {}) {
  const size = file.size;
  const fields = { target, filename: file.name, ...metadata };
  const print = fingerprint({ target, name: file.name, size, lastModified: file.lastModified, folderId: fields.folderId, session: fields.session, as: fields.as });
  const headers = (more = {}) => ({ 'Tus-Resumable': TUS_VERSION, 'X-Podium-Request': '1', Accept: 'application/json', ...more });

  /** Waits `ms`, saying every second how many are left. */
  async function countdown(ms) {
    for (let left = ms; left > 0; left -= 1000) {
      onRetry(Math.ceil(left / 1000));
      await sleep(Math.min(1000, left));
    }
  }

  /** Runs `attempt` until it answers; a lost connection (or a "not now") waits out the back-off, counting down. */
  async function patiently(attempt) {
    for (let tries = 0; ; tries += 1) {
      let response = null;
      try {
        response = await attempt();
      } catch (error) {
        if (error.code !== 'network') throw error;
      }
      if (response && !TRANSIENT.has(response.status)) return response;
      if (tries >= backoff.length) throw new UploadError(0, 'network');
      await countdown(backoff[tries]);
    }
  }

  async function create() {
    const response = await patiently(() => request('POST', endpoint, {
      headers: headers({ 'Upload-Length': String(size), 'Upload-Metadata': encodeMetadata(fields) }),
    }));
    if (response.status !== 201) throw refusal(response);
    const url = uploadURL(response.header('Location'));
    if (!url) throw new UploadError(response.status, 'bad_location');
    remember(storage, print, url, parseExpires(response.header('Upload-Expires')));
    return { url, offset: parseOffset(response.header('Upload-Offset')) || 0 };
  }

  /** The server's offset of a remembered upload, or null when it is gone (unknown, expired, someone else's). */
  async function offsetOf(url) {
    const response = await patiently(() => request('HEAD', url, { headers: headers() }));
    if (response.status === 404 || response.status === 410 || response.status === 403) return null;
    const offset = parseOffset(response.header('Upload-Offset'));
    if (response.status !== 200 || offset === null) throw refusal(response);
    keepExpiry(url, response);
    return offset;
  }

  /** A finished upload whose last answer was lost: its result, as GET gives it. */
  async function finished(url) {
    for (let tries = 0; tries <= backoff.length; tries += 1) {
      const response = await patiently(() => request('GET', url, { headers: headers() }));
      if (response.status !== 200) throw refusal(response);
      const upload = parseJSON(response.body);
      if (upload && upload.state === 'done' && upload.result) return upload.result;
      if (tries < backoff.length) await sleep(backoff[tries]);
    }
    throw new UploadError(0, 'network');
  }

  /** The server moved the upload's expiry on (each PATCH does): remembered with it. */
  function keepExpiry(url, response) {
    const expires = parseExpires(response.header('Upload-Expires'));
    if (expires && rememberedUploads(storage)[print] === url) remember(storage, print, url, expires);
  }

  forgetExpired(storage, now());
  let url = rememberedUploads(storage)[print] || null;
  let offset = 0;
  if (url) {
    const held = await offsetOf(url);
    if (held === null) {
      forget(storage, print);
      url = null;
    } else {
      offset = held;
      if (offset > 0) onResume(Math.min(1, offset / size));
    }
  }
  if (!url) ({ url, offset } = await create());
  onProgress(offset / size);

  let restarts = 0;
  let busy = 0; // 409s in a row that moved nothing: the server still holds an earlier request of this upload
  for (;;) {
    if (offset >= size) {
      // Every byte is there but the answer was lost: the result waits with the upload.
      const body = await finished(url);
      forget(storage, print);
      return resultBody(body);
    }
    const end = Math.min(size, offset + chunkBytes);
    let response;
    try {
      response = await request('PATCH', url, {
        headers: headers({ 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) }),
        body: file.slice(offset, end),
        onProgress: (loaded) => onProgress(Math.min(end, offset + loaded) / size),
      });
    } catch (error) {
      if (error.code !== 'network') throw error;
      response = null;
    }
    if (response === null || TRANSIENT.has(response.status)) {
      // Lost on the way: ask what arrived, then go on from there.
      const held = await offsetOf(url);
      if (held === null) {
        // Gone (expired): one more start from the beginning, then give up.
        forget(storage, print);
        if (restarts++ > 0) throw new UploadError(404, 'not_found');
        ({ url, offset } = await create());
      } else {
        offset = held;
      }
      onProgress(offset / size);
      continue;
    }
    if (response.status === 204) {
      busy = 0;
      keepExpiry(url, response);
      const next = parseOffset(response.header('Upload-Offset'));
      offset = next === null ? end : next;
      onProgress(offset / size);
      continue;
    }
    if (response.status === 200) {
      forget(storage, print);
      onProgress(1);
      return resultBody(parseJSON(response.body));
    }
    if (response.status === 409) {
      const next = parseOffset(response.header('Upload-Offset'));
      if (next !== null && next !== offset) {
        // Another try of ours got further (or less far) than we knew: go on from the server's offset.
        offset = next;
        onProgress(offset / size);
        continue;
      }
      // The server is still reading an earlier request of this upload (one cut off on our side
      // that it has not seen end yet): its offset is known once that ends. Wait, then ask.
      if (busy >= backoff.length) throw new UploadError(0, 'network');
      await countdown(backoff[busy++]);
      const held = await offsetOf(url);
      if (held !== null) offset = held;
      continue;
    }
    if (response.status === 404 && restarts++ === 0) {
      forget(storage, print);
      ({ url, offset } = await create());
      continue;
    }
    // Refused for good (the file's type, the room, …): the server removed the upload.
    forget(storage, print);
    throw refusal(response);
  }
}
