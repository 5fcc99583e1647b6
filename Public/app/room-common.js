// What the room pages share (docs/protocol.md, "Rooms"): links, names, timers, messages,
// uploads. The stage itself is stage-driver.js's.

import { ApiError } from './api.js';
import { stageDeck } from './live.js';

export { stageDeck };

/** The room's code from /r/{code}[/…]. */
export function roomCode() {
  return decodeURIComponent(location.pathname.split('/')[2] || '').toUpperCase();
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
  if (!id) return 'The moderator';
  const found = ((room && room.control && room.control.presenters) || []).find((p) => p.id === id);
  return found ? found.name : 'A presenter';
}

/** Who drives the stage now, as people say it. */
export function nowPresenting(room) {
  const active = room && room.control && room.control.active;
  return active ? presenterName(room, active) : 'The moderator';
}

/** 83 → "1:23", 3725 → "1:02:05". */
export function formatDuration(seconds) {
  const total = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n) => String(n).padStart(2, '0');
  return h ? h + ':' + two(m) + ':' + two(s) : m + ':' + two(s);
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

/** Clear words for the server's error codes (the server's message when we have none). */
const MESSAGES = {
  not_in_control: 'Someone else has control of the stage right now.',
  queue_full: 'The queue is full: the moderator is not taking more requests right now. Try again later.',
  already_requested: 'Your request is already waiting in the queue.',
  already_presenting: 'You are presenting already.',
  no_requests: 'Nobody is waiting for control.',
  not_in_room: 'That presenter is not in this room (any more).',
  deck_not_found: 'That deck is not in this room.',
  too_many_decks: 'This room holds as many decks as it can.',
  ended: 'This room has ended.',
  name_required: 'Enter your name to join as a presenter.',
  passcode_required: 'This room needs a passcode.',
  passcode_wrong: 'Wrong passcode. Check it and try again.',
  rate_limited: 'Too many attempts. Wait a minute, then try again.',
  not_moderator: 'Only the moderator of this room can open this console.',
  not_found: 'There is no room with this code.',
  nothing_shown: 'Nothing has been shown in this room yet, so there is nothing to export.',
};

export function errorText(error) {
  if (!error) return 'Something went wrong.';
  return MESSAGES[error.code] || error.message || 'Something went wrong (' + error.code + ').';
}

/**
 * Uploads a PDF into a room (POST /api/v1/sessions/{code}/decks) with upload progress.
 * Resolves with {deckId, title, status}; the deck joins the room (deckAdded) once processed.
 */
export function uploadToRoom(code, file, { onProgress, asPresenter = false } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const title = file.name ? file.name.replace(/\.pdf$/i, '') : '';
    const query = [];
    if (title) query.push('title=' + encodeURIComponent(title));
    if (asPresenter) query.push('as=presenter');
    xhr.open('POST', '/api/v1/sessions/' + encodeURIComponent(code) + '/decks' + (query.length ? '?' + query.join('&') : ''));
    xhr.setRequestHeader('Content-Type', 'application/pdf');
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
        reject(new ApiError(413, 'too_large', 'This file is larger than the server accepts.'));
      } else {
        reject(new ApiError(xhr.status, 'http_' + xhr.status, 'The upload failed (' + xhr.status + ').'));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload was interrupted. Check your connection and try again.')));
    xhr.send(file);
  });
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Icons the room pages add to ui.js's set (24×24 line icons). */
const ROOM_ICONS = {
  hand: ['M18 11V6a2 2 0 0 0-4 0v5', 'M14 10V4a2 2 0 0 0-4 0v6', 'M10 10.5V6a2 2 0 0 0-4 0v8',
    'M18 8a2 2 0 1 1 4 0v6a8 8 0 0 1-8 8h-2c-2.8 0-4.5-.9-5.9-2.4L2.7 16a2 2 0 0 1 2.9-2.8L7 15'],
  clock: ['M12 12m-9 0a9 9 0 1 0 18 0a9 9 0 1 0 -18 0', 'M12 7v5l3 2'],
  moon: ['M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z'],
  projector: ['M2 7h20v10H2z', 'M16 12m-2.5 0a2.5 2.5 0 1 0 5 0a2.5 2.5 0 1 0 -5 0', 'M5 10h6', 'M5 14h4', 'M6 17v3', 'M18 17v3'],
  pass: ['M5 12h14', 'M13 6l6 6-6 6'],
  undo: ['M9 14L4 9l5-5', 'M4 9h11a5 5 0 0 1 0 10h-4'],
  crown: ['M3 8l4 4 5-7 5 7 4-4-2 11H5z'],
  library: ['M4 4h4v16H4z', 'M10 4h4v16h-4z', 'M16.5 4.5l3.8 1-3.9 15-3.8-1z'],
};

/** An inline SVG icon from the room's set. */
export function roomIcon(name, size = 20) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  for (const [k, v] of Object.entries({
    viewBox: '0 0 24 24', width: size, height: size, fill: 'none', stroke: 'currentColor', 'stroke-width': '2',
    'stroke-linecap': 'round', 'stroke-linejoin': 'round', 'aria-hidden': 'true', focusable: 'false',
  })) svg.setAttribute(k, String(v));
  svg.classList.add('icon');
  for (const d of ROOM_ICONS[name] || []) {
    const path = document.createElementNS(SVG_NS, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

/** Replaces every <span data-room-icon="name"> with its SVG. */
export function hydrateRoomIcons(root = document) {
  for (const holder of root.querySelectorAll('[data-room-icon]')) {
    if (holder.firstChild && holder.firstChild.nodeName === 'svg') continue;
    holder.replaceChildren(roomIcon(holder.dataset.roomIcon, Number(holder.dataset.iconSize) || 20));
  }
}

/** Copies text to the clipboard (with the old way for plain http on a LAN address). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    const field = document.createElement('textarea');
    field.value = text;
    field.className = 'visually-hidden';
    field.setAttribute('readonly', '');
    document.body.append(field);
    field.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (_) {
      ok = false;
    }
    field.remove();
    return ok;
  }
}
