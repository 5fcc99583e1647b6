// One uploader for every page that sends PDFs: a queue that checks each file before sending it
// (size against the server's limit from GET /api/v1/limits, PDF by its bytes), sends one at a
// time with progress, then follows the server's processing, and says at every step what it
// is doing and why a file waits.
//
//   const queue = new UploadQueue({ url: (item) => '/api/v1/decks?title=' + … });
//   queue.addEventListener('change', (event) => render(event.detail.item));
//   queue.add(file, { title });
//
// An item's `state`: checking → waiting → uploading → processing → ready, or failed at any
// step (`error` says why). `statusText(item)` is the line to show: "Waiting — 1 upload at a
// time", "Uploading 43 %", "Processing page 3 of 12", "Failed: not a PDF".
//
// Files go up resumably (media/resumable.js, the tus protocol of /api/v1/uploads): pass the
// upload's `target` (deck, video) and its `metadata(item)` (title, folderId). A lost connection
// is tried again for about a minute ("Connection lost — retrying in 4 s"), and the same file
// chosen again after a reload continues where the server stopped ("Resuming at 43 %"). Without a
// target (and for an image set) a file goes in one POST to `url`.
//
// Rooms send through `uploadFile` with their targets (room-deck, room-video) and the room's
// `session` code; a presenter who is not signed in stops at "uploaded" (the room's deckAdded event
// says when it is ready).

import { t } from '../core/i18n.js';
import { api, ApiError } from '../core/api.js';
import { pruneUploads, resumableUpload } from './resumable.js';
import { trackDeck } from './upload-tracking.js';

export { trackDeck, trackVideo, trackJob } from './upload-tracking.js';

let limitsPromise = null;

/** The server's upload limits ({maxUploadBytes, uploadTypes}), asked once per page. */
export function uploadLimits() {
  if (!limitsPromise) {
    limitsPromise = api('/api/v1/limits').catch((error) => {
      limitsPromise = null; // ask again next time
      throw error;
    });
  }
  return limitsPromise;
}

/** "2 GB", "200 MB", "1.5 MB", "800 KB". */
export function formatBytes(bytes) {
  if (bytes >= 1024 * 1024 * 1024) {
    const gb = bytes / (1024 * 1024 * 1024);
    return t('upload.bytes-gb', { size: Number.isInteger(gb) || gb >= 10 ? Math.round(gb) : Number(gb.toFixed(1)) });
  }
  if (bytes >= 1024 * 1024) {
    const mb = bytes / (1024 * 1024);
    return t('upload.bytes-mb', { size: mb >= 10 || Number.isInteger(mb) ? Math.round(mb) : Number(mb.toFixed(1)) });
  }
  return t('upload.bytes-kb', { size: Math.max(1, Math.round(bytes / 1024)) });
}

/** Whether a file is a PNG, JPEG or WebP image by its type or name (the server checks its bytes). */
export function isImage(file) {
  return /^image\/(png|jpeg|webp)$/.test(file.type || '') || /\.(png|jpe?g|webp)$/i.test(file.name || '');
}

/**
 * Several images chosen together: one deck, a page each, in the order of their names (as the
 * server orders them: `p2` before `p10`). It goes to the queue as one upload, sent as a
 * multipart form of `file` fields in one POST, not resumably: a resumable upload carries one
 * file, and an image set is small (a few pictures).
 */
export class ImageSet {
  constructor(files) {
    this.files = [...files].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    this.name = t('upload.image-set', { count: this.files.length });
    this.size = this.files.reduce((total, file) => total + file.size, 0);
  }

  body() {
    const form = new FormData();
    for (const file of this.files) form.append('file', file, file.name);
    return form;
  }
}

/** Whether the file's first bytes say PDF (as the server checks: "%PDF-" in the first KiB). */
export async function looksLikePDF(file) {
  const head = new Uint8Array(await file.slice(0, 1028).arrayBuffer());
  const marker = [0x25, 0x50, 0x44, 0x46, 0x2d];
  for (let start = 0; start + marker.length <= head.length; start += 1) {
    if (marker.every((byte, i) => head[start + i] === byte)) return true;
  }
  return false;
}

/**
 * Whether the file's first bytes say it is a deck the server converts or shows: a PDF, a ZIP
 * container (PPTX, DOCX, ODP, ODT, Keynote, a ZIP of images), an OLE2 file (PPT, DOC), or a PNG,
 * JPEG or WebP image. The server sniffs again, and looks inside the containers.
 */
export async function looksLikeDeck(file) {
  if (await looksLikePDF(file)) return true;
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const starts = (bytes, at = 0) => bytes.every((byte, i) => head[at + i] === byte);
  return starts([0x50, 0x4b, 0x03, 0x04]) // ZIP
    || starts([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) // OLE2
    || starts([0x89, 0x50, 0x4e, 0x47]) // PNG
    || starts([0xff, 0xd8, 0xff]) // JPEG
    || (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)); // RIFF....WEBP
}

/** Images rendered per page (large, medium, thumbnail): a deck's rendering progress counts images. */
const IMAGES_PER_PAGE = 3;

/** What the server's processing progress ({stage, done, total}) means to a person. */
export function processingText(progress) {
  if (!progress) return t('upload.waiting-processing');
  const { stage, done = 0, total = 0 } = progress;
  if (stage === 'queued') return t('upload.queued');
  if (stage === 'convert') return t('upload.converting');
  if (stage === 'inspecting') return t('upload.inspecting');
  if (stage === 'rendering' && total > 0) {
    if (total % IMAGES_PER_PAGE === 0) {
      const pages = total / IMAGES_PER_PAGE;
      const page = Math.min(pages, Math.floor(done / IMAGES_PER_PAGE) + 1);
      return t('upload.rendering-page', { page, pages });
    }
    return t('upload.rendering-percent', { percent: Math.round((done / total) * 100) });
  }
  if (stage === 'text') return t('upload.text');
  // A video's packaging (ffmpeg): its progress counts milliseconds of the clip.
  if (stage === 'probing') return t('upload.probing');
  if (stage === 'packaging') return t('upload.packaging', { percent: total > 0 ? Math.round((done / total) * 100) : 0 });
  if (stage === 'finishing') return t('upload.finishing');
  if (stage === 'storing') return t('upload.storing');
  return t('upload.processing');
}

/** How long "Resuming at 43 %" stays, at least, so that it can be read. */
export const RESUMED_MS = 3000;

/**
 * An upload on its way: "Connection lost — retrying in 4 s" while it waits to try again,
 * "Resuming at 43 %" when a remembered upload continues (for RESUMED_MS, and until a percent
 * more is sent), else "Uploading 57 %".
 */
export function uploadingText(item, now = Date.now()) {
  if (item.retryIn) return t('upload.retrying', { seconds: item.retryIn });
  const percent = Math.round(item.fraction * 100);
  const resumed = item.resumedAt !== null && item.resumedAt !== undefined ? Math.round(item.resumedAt * 100) : null;
  if (resumed !== null && (percent <= resumed || now - item.resumedTime < RESUMED_MS)) return t('upload.resuming', { percent: resumed });
  return t('upload.uploading', { percent });
}

/** The one line that says what is happening to an upload, and why it waits. */
export function statusText(item) {
  switch (item.state) {
    case 'checking': return t('upload.checking-file');
    case 'waiting': return t('upload.waiting', { count: item.queue.concurrency });
    case 'uploading': return uploadingText(item);
    case 'processing': return processingText(item.progress);
    case 'ready': return t('upload.ready');
    case 'failed': return t('upload.failed-because', { reason: item.error });
    default: return '';
  }
}

/** The fraction (0..1) a progress bar shows for an item. */
export function fractionOf(item) {
  if (item.state === 'uploading') return item.fraction;
  if (item.state === 'processing' && item.progress && item.progress.total) return item.progress.done / item.progress.total;
  return item.state === 'ready' ? 1 : 0;
}

/** Sends a file with upload progress (fetch cannot report it). Resolves with the JSON answer. */
export function send(url, file, { onProgress, contentType = 'application/pdf' } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    // An image set is a multipart form: the browser writes its Content-Type, with the boundary.
    const body = file instanceof ImageSet ? file.body() : file;
    if (!(body instanceof FormData)) xhr.setRequestHeader('Content-Type', contentType);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-Podium-Request', '1');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && onProgress) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch (_) {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body) {
        if (onProgress) onProgress(1);
        resolve(body);
      } else if (body && body.error) {
        reject(new ApiError(xhr.status, body.error.code, body.error.message));
      } else if (xhr.status === 413) {
        reject(new ApiError(413, 'too_large', t('upload.reason-too-large')));
      } else {
        reject(new ApiError(xhr.status, 'http_' + xhr.status, t('upload.reason-http', { status: String(xhr.status) })));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', t('upload.reason-lost'))));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'aborted', t('upload.reason-cancelled'))));
    xhr.send(body);
  });
}

/**
 * Sends a file resumably (media/resumable.js) to `target` (deck, video, room-deck, room-video)
 * with its `metadata` (title, folderId, session, as). Resolves with the one-shot route's answer;
 * rejects with an ApiError whose message completes "Failed: …". `onResume(fraction)` says a
 * remembered upload continues; `onRetry(seconds)` counts down to the next try after a lost
 * connection; `onProgress(fraction)` follows the bytes.
 */
export async function uploadFile(file, { target, metadata = {}, chunkBytes, onProgress, onResume, onRetry } = {}) {
  try {
    return await resumableUpload(file, { target, metadata, chunkBytes, onProgress, onResume, onRetry });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error && error.code) || 'failed';
    let message = error && error.message !== code ? error.message : '';
    if (!message) {
      message = code === 'too_large' ? t('upload.reason-too-large')
        : code === 'aborted' ? t('upload.reason-cancelled')
        : code === 'network' ? t('upload.reason-lost')
        : t('upload.reason-http', { status: String((error && error.status) || 0) });
    }
    throw new ApiError((error && error.status) || 0, code, message);
  }
}

let counter = 0;

/** Short reasons for the codes the server gives, to follow "Failed: ". */
const REASONS = {
  not_pdf: 'upload.reason-not-pdf',
  unsupported_type: 'upload.reason-unsupported-type',
  not_video: 'upload.reason-not-video',
  empty: 'upload.reason-empty',
  too_large: 'upload.reason-too-large',
  network: 'upload.reason-lost',
};

/**
 * What the server would refuse, found before sending a byte: an empty file, one over the server's
 * limit, one that is not a PDF. Throws an ApiError whose message completes "Failed: …".
 */
export async function checkFile(file) {
  if (file instanceof ImageSet) {
    for (const image of file.files) {
      if (!image.size) throw new ApiError(400, 'empty', t('upload.reason-empty'));
      if (!(await looksLikeDeck(image))) throw new ApiError(415, 'unsupported_type', t('upload.reason-unsupported-type'));
    }
  }
  if (!file.size) throw new ApiError(400, 'empty', t('upload.reason-empty'));
  let limits = null;
  try {
    limits = await uploadLimits();
  } catch (_) {
    limits = null; // the server checks again anyway
  }
  if (limits && file.size > limits.maxUploadBytes) {
    throw new ApiError(413, 'too_large_local', t('upload.reason-too-large-local', { size: formatBytes(file.size), limit: formatBytes(limits.maxUploadBytes) }));
  }
  if (!(file instanceof ImageSet) && !(await looksLikeDeck(file))) {
    // A file named .pdf whose bytes are something else: say that, it is what the person can fix.
    if (/\.pdf$/i.test(file.name || '')) throw new ApiError(415, 'not_pdf', t('upload.reason-not-pdf'));
    throw new ApiError(415, 'unsupported_type', t('upload.reason-unsupported-type'));
  }
}

/** Whether a file is a video or audio file by its name or type (the server decides by its bytes). */
export function looksLikeMedia(file) {
  return /^(video|audio)\//.test(file.type || '') || /\.(mp4|m4v|mov|webm|mkv|m4a|mp3|ogg|oga|wav|aac|flac)$/i.test(file.name || '');
}

/**
 * What the server would refuse of a video, found before sending a byte: an empty file, one over
 * the server's limit, a PDF (which belongs in a deck upload). The server probes the rest.
 */
export async function checkVideoFile(file) {
  if (!file.size) throw new ApiError(400, 'empty', t('upload.reason-empty'));
  let limits = null;
  try {
    limits = await uploadLimits();
  } catch (_) {
    limits = null;
  }
  if (limits && file.size > limits.maxVideoUploadBytes) {
    throw new ApiError(413, 'too_large_local', t('upload.reason-too-large-local', { size: formatBytes(file.size), limit: formatBytes(limits.maxVideoUploadBytes) }));
  }
  if (await looksLikePDF(file)) throw new ApiError(415, 'is_pdf', t('upload.reason-is-pdf'));
}

let pruned = false;

/** A queue of uploads to one target, `concurrency` at a time (one by default). */
export class UploadQueue extends EventTarget {
  /**
   * @param {object} options
   * @param {string|function(item): string} options.url where to POST each file (given the item)
   * @param {number} [options.concurrency] uploads at once
   * @param {function(answer, report): Promise|null} [options.track] follows processing after the
   *   upload: called with the server's answer and a `report(progress)`; resolves with the result,
   *   throws to fail the item. Defaults to `trackDeck`; null stops at "ready" when the file is sent.
   * @param {function(File): Promise} [options.check] refuses a file before it is sent (throws); `checkFile` (a PDF)
   * @param {function(File): string} [options.contentType] the upload's Content-Type
   * @param {string} [options.target] the resumable upload's target (deck, video, room-deck,
   *   room-video): files go through /api/v1/uploads; an image set still goes in one POST to `url`
   * @param {function(item): object} [options.metadata] the upload's metadata (title, folderId, session, as)
   * @param {number} [options.chunkBytes] the most one PATCH carries (8 MiB)
   */
  constructor({
    url, concurrency = 1, track = trackDeck, check = checkFile, contentType = (file) => file.type || 'application/octet-stream',
    target = null, metadata = (item) => ({ title: item.data.title, folderId: item.data.folderId }), chunkBytes,
  } = {}) {
    super();
    this.url = url;
    this.target = target;
    this.metadata = metadata;
    this.chunkBytes = chunkBytes;
    this.checkFile = check;
    this.contentType = contentType;
    this.concurrency = concurrency;
    this.track = track;
    this.items = [];
    // Once a page: the remembered uploads of files never chosen again, past their expiry or gone.
    if (target && !pruned) {
      pruned = true;
      pruneUploads().catch(() => {});
    }
  }

  /** Queues `file`; `data` is kept on the item for the page (a title, a folder). Returns the item. */
  add(file, data = {}) {
    const item = {
      key: 'upload-' + ++counter, file, name: file.name, data, queue: this,
      state: 'checking', fraction: 0, progress: null, error: null, result: null, answer: null,
      resumedAt: null, retryIn: null,
    };
    this.items.push(item);
    this.changed(item);
    this.check(item);
    return item;
  }

  /** Forgets a finished or failed item. */
  dismiss(item) {
    this.items = this.items.filter((other) => other !== item);
    this.dispatchEvent(new CustomEvent('change', { detail: { item, removed: true } }));
  }

  changed(item) {
    this.dispatchEvent(new CustomEvent('change', { detail: { item } }));
  }

  fail(item, error) {
    item.state = 'failed';
    const reason = (error && REASONS[error.code] && t(REASONS[error.code])) || (error && error.message) || String(error);
    item.error = reason.replace(/\.$/, '');
    item.errorCode = (error && error.code) || 'failed';
    this.changed(item);
  }

  async check(item) {
    try {
      await this.checkFile(item.file);
    } catch (error) {
      this.fail(item, error);
      return;
    }
    item.state = 'waiting';
    this.changed(item);
    this.pump();
  }

  /** Starts waiting uploads while fewer than `concurrency` are sending. */
  pump() {
    const sending = this.items.filter((item) => item.state === 'uploading').length;
    const next = this.items.filter((item) => item.state === 'waiting').slice(0, Math.max(0, this.concurrency - sending));
    for (const item of next) this.run(item);
  }

  async run(item) {
    item.state = 'uploading';
    item.fraction = 0;
    this.changed(item);
    let lastPaint = 0;
    const onProgress = (fraction) => {
      item.fraction = fraction;
      const now = Date.now();
      if (item.retryIn || now - lastPaint > 80 || fraction >= 1) {
        item.retryIn = null;
        lastPaint = now;
        this.changed(item);
      }
    };
    try {
      if (this.target && !(item.file instanceof ImageSet)) {
        item.answer = await uploadFile(item.file, {
          target: this.target, metadata: this.metadata(item), chunkBytes: this.chunkBytes, onProgress,
          onResume: (fraction) => {
            item.resumedAt = fraction;
            item.resumedTime = Date.now();
            item.fraction = fraction;
            this.changed(item);
          },
          onRetry: (seconds) => {
            item.retryIn = seconds;
            this.changed(item);
          },
        });
      } else {
        const url = typeof this.url === 'function' ? this.url(item) : this.url;
        item.answer = await send(url, item.file, { contentType: this.contentType(item.file), onProgress });
      }
    } catch (error) {
      this.fail(item, error);
      this.pump();
      return;
    }
    // Sent: the next file may go while the server processes this one.
    item.retryIn = null;
    item.state = 'processing';
    item.progress = item.answer.progress || null;
    this.changed(item);
    this.pump();
    if (!this.track) {
      item.state = 'ready';
      item.result = item.answer;
      this.changed(item);
      return;
    }
    try {
      item.result = await this.track(item.answer, (progress) => {
        item.progress = progress;
        this.changed(item);
      });
      item.state = 'ready';
      this.changed(item);
    } catch (error) {
      this.fail(item, error);
    }
  }
}
