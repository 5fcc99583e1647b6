// Following an upload the server accepted through its processing (media/uploader.js's queue and
// the room pages): polls the deck, the video or the job until it is ready or failed, reporting
// its progress ({stage, done, total}) on the way.

import { t } from '../core/i18n.js';
import { api, ApiError } from '../core/api.js';

const POLL_MS = 500;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows a deck the library accepted until it is ready or failed: polls GET /api/v1/decks/{id},
 * reporting its progress. Resolves with the deck; throws an ApiError when processing failed.
 */
export async function trackDeck(answer, report) {
  const id = answer.id || answer.deckId;
  for (;;) {
    let deck;
    try {
      deck = await api('/api/v1/decks/' + encodeURIComponent(id));
    } catch (error) {
      if (error.status === 404 || error.status === 401) throw error;
      await sleep(POLL_MS * 4); // the server is busy or away for a moment
      continue;
    }
    if (deck.status === 'ready') return deck;
    if (deck.status === 'failed') {
      throw new ApiError(422, (deck.error && deck.error.code) || 'failed', (deck.error && deck.error.message) || t('upload.reason-pdf-failed'));
    }
    report(deck.progress || null);
    await sleep(POLL_MS);
  }
}

/**
 * Follows a video the library accepted until it is packaged or failed: polls GET
 * /api/v1/videos/{id}, reporting its progress. Resolves with the video.
 */
export async function trackVideo(answer, report) {
  for (;;) {
    let video;
    try {
      video = await api('/api/v1/videos/' + encodeURIComponent(answer.id));
    } catch (error) {
      if (error.status === 404 || error.status === 401) throw error;
      await sleep(POLL_MS * 4);
      continue;
    }
    if (video.status === 'ready') return video;
    if (video.status === 'failed') {
      throw new ApiError(422, (video.error && video.error.code) || 'failed', (video.error && video.error.message) || t('upload.reason-video-failed'));
    }
    report(video.progress || (video.status === 'queued' ? { stage: 'queued', done: 0, total: 0 } : null));
    await sleep(POLL_MS);
  }
}

/**
 * Follows an upload's processing job (the answer's `jobId`): polls GET /api/v1/jobs/{id}, which
 * its signed-in owner may read (a room's moderator, say). Resolves with the finished job.
 */
export async function trackJob(answer, report) {
  if (!answer.jobId) return answer; // nothing to process (a deck from the library)
  for (;;) {
    let job;
    try {
      job = await api('/api/v1/jobs/' + encodeURIComponent(answer.jobId));
    } catch (error) {
      if (error.status === 404 || error.status === 401) throw error;
      await sleep(POLL_MS * 4);
      continue;
    }
    if (job.state === 'done') return { ...answer, job };
    if (job.state === 'failed') {
      throw new ApiError(422, (job.error && job.error.code) || 'failed', (job.error && job.error.message) || t('upload.reason-pdf-failed'));
    }
    report(job.progress || null);
    await sleep(POLL_MS);
  }
}
