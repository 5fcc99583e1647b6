// The presenter view's clocks (presenter-view.js): the time since the session started (the
// server's `session.startedAt`, on the server's clock estimated over the socket), the talk's
// countdown the presenter sets, and the wall clock. Durations are written by presenter-view.js
// as the rooms' timers write them (rooms/common.js's formatDuration and countdownText).
//
// The countdown lives in this browser only, kept in localStorage under the session's code, so a
// reload (or a second tab of the console) finds it where it was: its length, and either the
// instant it ends (running) or the seconds left (paused, or not started).
//
// State for tests and CSS: [data-role=countdown][data-running][data-level] with level `ok`,
// `warn` (5 minutes left, or half of a short talk), `final` (1 minute, or a fifth) and
// `over` (the time is up; the overtime counts up, in red); [data-role=elapsed][data-seconds];
// [data-role=clock]. Every reading goes through `clock.now()`, which a test may move forward
// (`clock.skew`, in milliseconds) instead of waiting for real minutes.

import { formatDate } from '../core/i18n.js';

/** The time every timer here reads: milliseconds since 1970, plus a test's skew. */
export const clock = {
  skew: 0,
  now() {
    return Date.now() + this.skew;
  },
};

const DEFAULT_MINUTES = 20;
const MAX_MINUTES = 600;

/** When the warnings come, in seconds left: 5 and 1 minutes; sooner in a short talk. */
export function thresholds(length) {
  return { warn: Math.min(300, length / 2), final: Math.min(60, length / 5) };
}

/** The level of a countdown with `left` seconds of `length`: ok, warn, final or over. */
export function levelOf(left, length) {
  const { warn, final } = thresholds(length);
  if (left <= 0) return 'over';
  if (left <= final) return 'final';
  if (left <= warn) return 'warn';
  return 'ok';
}

/** The talk's countdown, kept under `key` in localStorage. */
export class Countdown {
  constructor(key) {
    this.key = key;
    this.length = DEFAULT_MINUTES * 60;
    this.running = false;
    this.endsAt = 0; // ms since 1970, while running
    this.remaining = this.length; // seconds, while stopped
    this.restore();
  }

  restore() {
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(this.key) || 'null');
    } catch (_) {
      saved = null;
    }
    if (!saved || !(saved.length > 0)) return;
    this.length = Math.min(MAX_MINUTES * 60, saved.length);
    this.running = Boolean(saved.running) && Number.isFinite(saved.endsAt);
    this.endsAt = this.running ? saved.endsAt : 0;
    this.remaining = Number.isFinite(saved.remaining) ? saved.remaining : this.length;
  }

  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify({
        length: this.length, running: this.running, endsAt: this.endsAt, remaining: this.remaining,
      }));
    } catch (_) {
      // private mode: the countdown still runs, it is only not kept
    }
  }

  /** Seconds left now (negative once over). */
  left(now = clock.now()) {
    return this.running ? (this.endsAt - now) / 1000 : this.remaining;
  }

  /** Not started, or back at its full length. */
  get fresh() {
    return !this.running && this.remaining === this.length;
  }

  start(now = clock.now()) {
    if (this.running) return;
    this.endsAt = now + this.remaining * 1000;
    this.running = true;
    this.save();
  }

  pause(now = clock.now()) {
    if (!this.running) return;
    this.remaining = this.left(now);
    this.running = false;
    this.save();
  }

  reset() {
    this.running = false;
    this.remaining = this.length;
    this.save();
  }

  /** A new length in minutes; the countdown starts again from it (stopped). */
  setMinutes(minutes) {
    const value = Math.round(Number(minutes));
    if (!(value >= 1)) return false;
    this.length = Math.min(MAX_MINUTES, value) * 60;
    this.reset();
    return true;
  }

  get minutes() {
    return Math.round(this.length / 60);
  }
}

/** Seconds since `startedAt` (seconds since 1970 on the server's clock); `serverNow` in seconds or null. */
export function elapsedSince(startedAt, serverNow) {
  if (!startedAt) return 0;
  const now = serverNow != null ? serverNow + clock.skew / 1000 : clock.now() / 1000;
  return Math.max(0, now - startedAt);
}

/** The wall clock, as this page's language writes the time of day ("14:05", "2:05 PM"). */
export function wallClockText(now = clock.now()) {
  return formatDate(now, { hour: 'numeric', minute: '2-digit' });
}
