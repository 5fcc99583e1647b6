// What the room pages share (docs/protocol.md, "Rooms"): links, names, timers, messages,
// uploads. The stage itself is stage/driver.js's.

import { api, ApiError } from '../core/api.js';
import { errorText as sharedErrorText, formatNumber, t } from '../core/i18n.js';
import { el, modalDialog, toast } from '../core/ui.js';
import { addressPart } from '../core/page.js';
import { checkFile, uploadFile, RESUMED_MS } from '../media/uploader.js';
import { stageDeck } from '../live/live.js';

export { stageDeck };

/** The room's code from /r/{code}[/…]. */
export function roomCode() {
  return addressPart().toUpperCase();
}

/**
 * A room's links as the server hands them out (GET /api/v1/sessions/{code}): from its public
 * address or network address, never this page's own origin (a projector opened as localhost
 * must not show a QR code no phone can open).
 */
export function roomLinks(info) {
  return {
    presenter: info.presenterUrl,
    projector: info.projectorUrl,
    moderator: info.moderatorUrl,
    audience: info.joinUrl,
  };
}

/**
 * The side panel (join, polls, questions) slides over the page on narrow screens: the chip in
 * the bar opens it, its Close button shuts it.
 */
export function wireSidePanel() {
  const chip = document.getElementById('code-chip');
  const toggle = (show = !document.body.classList.contains('show-join')) => {
    document.body.classList.toggle('show-join', show);
    if (chip) chip.setAttribute('aria-expanded', String(show));
  };
  if (chip) chip.addEventListener('click', () => toggle());
  const close = document.getElementById('close-join');
  if (close) close.addEventListener('click', () => toggle(false));
}

/** The link without its scheme, for showing. */
export function shortURL(url) {
  return url.replace(/^https?:\/\//, '');
}

export function presenterName(room, id) {
  if (!id) return t('rooms.the-moderator');
  const found = ((room && room.control && room.control.presenters) || []).find((p) => p.id === id);
  return found ? found.name : t('rooms.a-presenter');
}

/** Who drives the stage now, as people say it. */
export function nowPresenting(room) {
  const active = room && room.control && room.control.active;
  return active ? presenterName(room, active) : t('rooms.the-moderator');
}

/** 83 → "1:23", 3725 → "1:02:05". */
export function formatDuration(seconds) {
  const total = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n) => formatNumber(n, { minimumIntegerDigits: 2 });
  return h ? formatNumber(h) + ':' + two(m) + ':' + two(s) : formatNumber(m) + ':' + two(s);
}

/** A countdown: "12:34" for the time left; "+1:05" once over (a talk's, the console's). */
export function countdownText(left) {
  return left > 0 ? formatDuration(Math.ceil(left)) : '+' + formatDuration(-left);
}

/** A talk's time left as people say it: "4:12 left", or "over by 0:12". */
export function remainingText(clock) {
  return clock.remaining < 0
    ? t('rooms.talk.over-by', { time: formatDuration(-clock.remaining) })
    : t('rooms.talk.time-left', { time: formatDuration(Math.ceil(clock.remaining)) });
}

/** Seconds since a time given as seconds since 1970 (the server's clock). */
export function secondsSince(epochSeconds) {
  if (!epochSeconds) return 0;
  return Date.now() / 1000 - epochSeconds;
}

/** Calls fn every second (and once now); returns a stop function. */
export function everySecond(fn) {
  fn();
  const timer = setInterval(fn, 1000);
  return () => clearInterval(timer);
}

/** The server's error codes a room's pages say in their own words (`rooms.error.<code>`). */
const ROOM_ERRORS = new Set(['not_in_control', 'queue_full', 'already_requested', 'already_presenting', 'no_requests', 'not_in_room', 'deck_not_found', 'too_many_decks', 'ended', 'name_required', 'passcode_required', 'passcode_wrong', 'rate_limited', 'not_moderator', 'not_found', 'nothing_shown']);

/** Clear words for a failed request: the room's message for its code, else the shared catalogues' (i18n.js). */
export function errorText(error) {
  if (error && error.said) return error.message;
  if (error && ROOM_ERRORS.has(error.code)) return t('rooms.error.' + error.code);
  if (error && !error.message && error.code) return t('rooms.error.unknown-code', { code: error.code });
  return sharedErrorText(error);
}

/**
 * Uploads a deck into a room, resumably (target room-deck: the answer is POST
 * /api/v1/sessions/{code}/decks's), with upload progress; `onResume(fraction)` and
 * `onRetry(seconds)` as uploader.js's `uploadFile`. Resolves with {deckId, title, status}; the
 * deck joins the room (deckAdded) once processed.
 */
export async function uploadToRoom(code, file, { onProgress, onResume, onRetry, asPresenter = false } = {}) {
  const title = file.name ? file.name.replace(/\.pdf$/i, '') : '';
  try {
    await checkFile(file);
    return await uploadFile(file, {
      target: 'room-deck', metadata: { title, session: code, as: asPresenter ? 'presenter' : null }, onProgress, onResume, onRetry,
    });
  } catch (error) {
    // The uploader's reasons complete "Failed: …"; here they stand alone, as a sentence.
    const reason = error && (error.code || error.message) ? errorText(error) : t('rooms.upload-failed');
    const failure = new ApiError(error && error.status, error && error.code, t('rooms.upload-failed-file', { file: file.name, reason }));
    failure.said = true; // already in the page's language, with the file's name
    throw failure;
  }
}

/**
 * The callbacks of a room's upload line (`label`, text, and `bar`, a progress bar's width) for
 * `uploadToRoom` and uploader.js's `uploadFile`: "Uploading talk.pdf… 57%", "Resuming talk.pdf at
 * 43%" (until a percent more is sent), "talk.pdf: connection lost — retrying in 4 s".
 */
export function uploadLine(label, bar, file) {
  let resumed = null;
  let resumedTime = 0;
  const width = (fraction) => { if (bar) bar.style.width = Math.round(fraction * 100) + '%'; };
  return {
    onProgress: (fraction) => {
      width(fraction);
      const percent = Math.round(fraction * 100);
      label.textContent = resumed !== null && (percent <= resumed || Date.now() - resumedTime < RESUMED_MS)
        ? t('rooms.upload-resuming', { file: file.name, percent: resumed })
        : t('rooms.uploading', { file: file.name, percent });
    },
    onResume: (fraction) => {
      resumed = Math.round(fraction * 100);
      resumedTime = Date.now();
      width(fraction);
      label.textContent = t('rooms.upload-resuming', { file: file.name, percent: resumed });
    },
    onRetry: (seconds) => { label.textContent = t('rooms.upload-retrying', { file: file.name, seconds }); },
  };
}

/**
 * Lets the signed-in user bring a ready deck of their library into the room (the moderator, or a
 * presenter with `asPresenter`). Decks already in the room are shown but cannot be picked.
 */
export async function pickFromLibrary({ code, room, asPresenter = false }) {
  let decks;
  try {
    decks = (await api('/api/v1/decks')).filter((d) => d.status === 'ready');
  } catch (error) {
    toast(errorText(error), { kind: 'error' });
    return;
  }
  const inRoom = new Set(((room && room.decks) || []).map((d) => d.id));
  const url = '/api/v1/sessions/' + encodeURIComponent(code) + '/decks' + (asPresenter ? '?as=presenter' : '');
  let dialog = null;
  const item = (deck) => el('li', {}, [el('button', {
    class: 'picker-item', attrs: { type: 'button', disabled: inRoom.has(deck.id), 'data-deck-id': deck.id },
    on: {
      click: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          await api(url, { method: 'POST', body: { deckId: deck.id } });
          toast(t('rooms.deck-joined', { title: deck.title }), { kind: 'success' });
          dialog.close();
        } catch (error) {
          button.disabled = false;
          toast(errorText(error), { kind: 'error' });
        }
      },
    },
  }, [
    deck.thumbnailUrl ? el('img', { attrs: { src: deck.thumbnailUrl, alt: '' } }) : el('span', { class: 'picker-noimg' }),
    el('span', { class: 'picker-text' }, [
      el('strong', { text: deck.title }),
      el('span', { text: inRoom.has(deck.id) ? t('rooms.in-the-room-already') : t('rooms.slides', { count: deck.pageCount || 0 }) }),
    ]),
  ])]);
  const close = el('button', { class: 'btn', text: t('rooms.close'), attrs: { type: 'button' }, on: { click: () => dialog.close() } });
  ({ dialog } = modalDialog({
    id: 'library-picker', cls: 'library-picker', title: t('rooms.picker-title'),
    body: [decks.length ? el('ul', { class: 'picker-list' }, decks.map(item)) : el('p', { class: 'dialog-text', text: t('rooms.picker-empty') })],
    actions: [close],
  }));
}

/**
 * A deck in a room's list (the moderator's decks, a presenter's own): its first page small, its
 * title with "On stage" when it is, `meta` under it, and `action` (a button, or null) after.
 */
export function deckItem(deck, { onStage, meta, action }) {
  const first = deck.pages[0];
  return el('li', { class: 'room-item deck-item', data: { deckId: deck.id } }, [
    first ? el('img', { class: 'deck-mini', attrs: { src: first.thumbnailUrl || first.mediumUrl, alt: '', loading: 'lazy' } }) : el('span', { class: 'deck-mini' }),
    el('span', { class: 'room-item-main' }, [
      el('span', { class: 'room-item-title' }, [el('strong', { text: deck.title }), onStage ? el('span', { class: 'badge badge-live', text: t('rooms.on-stage') }) : null]),
      el('span', { class: 'room-item-meta', text: meta }),
    ]),
    action,
  ]);
}

/**
 * The uploads (`pending`, deck id to title) not yet in the room's `decks`, as list items saying
 * `text` (each with `data`); an upload that has joined the room leaves `pending`.
 */
export function pendingDeckItems(pending, decks, { text, data = {} }) {
  const items = [];
  for (const [id, title] of pending) {
    if (decks.some((d) => d.id === id)) {
      pending.delete(id);
      continue;
    }
    items.push(el('li', { class: 'room-item deck-item is-processing', data }, [
      el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [el('strong', { text: title }), el('span', { class: 'room-item-meta', text })]),
    ]));
  }
  return items;
}

/** What the stage shows, in words: the video on it, else the deck and its slide. */
export function onStageText(state, deck) {
  const media = state.playback && state.playback.media;
  if (media) return t('rooms.on-stage-video', { title: media.title });
  return deck ? t('rooms.on-stage-deck', { title: deck.title, page: state.page, count: deck.pages.length }) : t('rooms.nothing-on-stage');
}
