// The talk on a room's stage (docs/protocol.md, "Rooms"): how long it may last, how long it has
// run, and how close it is to its end. Mirrors RoomSnapshot.talkClock and TalkClock in
// Sources/PodiumCore/Room.swift. Pure: no DOM; the pages and the projector's overlay show it.
//
// A talk is a presenter's time on stage: it runs while they hold control in their own right and
// while they have lent it (the borrower speaks in the lender's time), and it adds up across lends
// and turns instead of starting again at 0:00 at every control change.

import { serverClock } from '../live/clock.js';

/** Seconds left when the countdown warns: two minutes, then thirty seconds (RoomTalks.warnings). */
export const WARNINGS = [120, 30];
/** The longest talk, in seconds (RoomTalks.maxLength). */
export const MAX_LENGTH = 12 * 3600;

/** The server's time now (seconds since 1970): estimated over the socket, else this machine's clock. */
export function serverNow(live) {
  const now = live ? serverClock(live).now() : null;
  return now ?? Date.now() / 1000;
}

/** Whose talk runs: the presenter in control in their own right, or the one who lent it (null: the moderator). */
export function talkOnStage(room) {
  const control = room && room.control;
  if (!control) return null;
  return control.lender || control.active || null;
}

/** A presenter's talk length in seconds (theirs, else the room's default), or null. */
export function talkLength(room, presenter) {
  const talks = (room && room.talks) || {};
  const own = presenter && talks.lengths ? talks.lengths[presenter] : undefined;
  return own ?? talks.defaultLength ?? null;
}

/** running | warning | closing | over, from the seconds left (null: no length, always running). */
export function phaseOf(remaining) {
  if (remaining == null) return 'running';
  if (remaining < 0) return 'over';
  if (remaining <= WARNINGS[1]) return 'closing';
  if (remaining <= WARNINGS[0]) return 'warning';
  return 'running';
}

/**
 * The talk on stage at `now` (seconds since 1970): {presenter, elapsed, length, remaining, phase},
 * or null while the moderator has the stage (or once the room has ended).
 */
export function talkClock(room, now, { ended = false } = {}) {
  const presenter = talkOnStage(room);
  if (!presenter || ended) return null;
  const used = (room.talks && room.talks.used && room.talks.used[presenter]) || 0;
  const running = room.controlSince != null ? Math.max(0, now - room.controlSince) : 0;
  const elapsed = used + running;
  const length = talkLength(room, presenter);
  const remaining = length == null ? null : length - elapsed;
  return { presenter, elapsed, length, remaining, phase: phaseOf(remaining) };
}

/** A presenter's time on stage at `now`, the running stretch included while their talk is on. */
export function timeOnStage(room, presenter, now) {
  const clock = talkClock(room, now);
  if (clock && clock.presenter === presenter) return clock.elapsed;
  return (room && room.talks && room.talks.used && room.talks.used[presenter]) || 0;
}

/**
 * A talk length as people type it: "20" (minutes), "12:30" (minutes:seconds), "1:00:00"; "" is
 * none (null). Returns the seconds, null, or NaN when it cannot be read or is out of range.
 */
export function parseLength(text) {
  const raw = String(text || '').trim();
  if (!raw) return null;
  let seconds;
  if (/^\d+([.,]\d+)?$/.test(raw)) seconds = Math.round(Number(raw.replace(',', '.')) * 60);
  else {
    const match = /^(?:(\d+):)?(\d+):([0-5]\d)$/.exec(raw);
    if (!match) return NaN;
    seconds = Number(match[1] || 0) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  }
  return seconds >= 1 && seconds <= MAX_LENGTH ? seconds : NaN;
}
