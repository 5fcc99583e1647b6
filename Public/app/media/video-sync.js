// Keeping a <video> at the moment of the clip the stage's playback reference says, on every
// screen (docs/protocol.md, "Video on the stage"). Pure rules first (tested in
// Tests/Browser/test_video.py through the page), then the follower that applies them.
//
// Where the clip should be: referencePosition(playback, serverNow). How to get there from where
// it is: correction(drift). Small drift is left alone (a nudge would be audible for nothing),
// moderate drift is eaten by playing a little faster or slower, large drift is a seek aimed where
// the clip will be when the seek is done (the seek's own delay, learnt from the last seeks, is
// not counted as drift: the follower measures nothing until the seek has landed).

/**
 * Drift under this (seconds) is left alone. A nudge stops once the drift is under it, so a
 * screen settles just inside it (and a slow frame only ever puts a screen behind): the
 * benchmark (Benchmarks/video-sync.py) measured a median drift of about this much, 29 ms at
 * 30 ms and 14 ms at 15 ms. The nudge that 15 ms asks for is 1.5 %, too small to hear.
 */
export const IGNORE = 0.015;
/**
 * Drift over this is a seek; between the two, a nudge of the rate. A seek aimed past its own
 * delay landed within about 100 ms in the benchmark, but the largest nudge eats only 80 ms a
 * second: at 400 ms a screen just under it took 4 to 5 s to come within 100 ms (a first play,
 * whose start on a fresh player stalls some 400 ms). From 250 ms it takes about 2 s.
 */
export const SEEK_OVER = 0.25;
/** The largest nudge: the rate stays within ±8 % of the reference's. */
export const NUDGE = 0.08;
/**
 * Seconds for a nudge to eat the drift it sees (so it shrinks as the drift does, without
 * overshooting: each 100 ms tick takes a tenth of it). 1.5 s left a screen 60 ms behind after a
 * seek's start for over a second more.
 */
const NUDGE_HORIZON = 1.0;

/**
 * Where the clip plays on the stage: from its trim's start (or 0) to its trim's end (or its
 * length; null when neither is known). Mirrors Playback.lower/upper.
 */
export function clipRange(playback) {
  const lower = typeof playback.start === 'number' ? playback.start : 0;
  const upper = typeof playback.end === 'number' ? playback.end : typeof playback.duration === 'number' ? playback.duration : null;
  return { lower, upper };
}

/**
 * Where the clip is at server time `now` (seconds), by the reference: kept inside its trim, and
 * a looping clip past its end goes on from its start (the same remainder as the server's, so every
 * screen wraps at the same moment). Mirrors Playback.position(at:).
 */
export function referencePosition(playback, now) {
  const { lower, upper } = clipRange(playback);
  let position = playback.position;
  if (playback.state === 'playing' && now > playback.anchor) {
    position += (now - playback.anchor) * playback.rate;
    if (playback.loop && upper !== null && upper > lower && position >= upper) position = lower + ((position - lower) % (upper - lower));
  }
  position = Math.max(lower, position);
  if (upper !== null) position = Math.min(upper, position);
  return position;
}

/** Whether the clip should be moving at `now` (playing, its start reached, not at its end; a looping clip always). */
export function shouldPlay(playback, now) {
  if (playback.state !== 'playing' || now < playback.anchor) return false;
  const { upper } = clipRange(playback);
  return playback.loop === true || upper === null || referencePosition(playback, now) < upper;
}

/**
 * What to do about `drift` (seconds: where the clip is minus where it should be; positive is
 * ahead) while playing at `rate`: {action: 'none'|'nudge'|'seek', rate}.
 */
export function correction(drift, rate = 1) {
  const size = Math.abs(drift);
  if (!(size >= IGNORE)) return { action: 'none', rate };
  if (size >= SEEK_OVER) return { action: 'seek', rate };
  // Ahead: slower; behind: faster. Proportional, so it does not overshoot.
  const nudge = Math.max(-NUDGE, Math.min(NUDGE, drift / NUDGE_HORIZON));
  return { action: 'nudge', rate: rate * (1 - nudge) };
}

/** The seek delay to aim ahead by, learnt as a moving average of measured seeks (seconds). */
export function learnSeekDelay(previous, measured) {
  const clamped = Math.max(0, Math.min(2, measured));
  return previous === null ? clamped : previous * 0.6 + clamped * 0.4;
}
