// Keeps a Video.js player on a stream URL that expires (docs/channel.md, "Stream URLs"):
// /stream/<token>/<file>, whose playlists name their segments relatively (so every request carries
// the token) and whose token answers 410 stream_expired once its time is over. The person does
// nothing:
//
// - before the token runs out, the page asks for a new URL (`renew`) and every request the HLS
//   engine makes from then on carries the new token (its beforeRequest hook rewrites
//   /stream/<old>/ to /stream/<new>/): playback goes on without a pause;
// - if a request is refused anyway (410: the computer slept through the renewal), a new URL is
//   asked for at once; the engine tries the segment again, with the new token, and plays on;
// - if the player stops on an error all the same (Safari plays HLS itself, without the hook), a new
//   URL is loaded where the player was (`reload`: by default the same position, playing if it
//   was; a live stream passes its own, to rejoin the live edge).
// Only if renewing fails is `onFailed(error)` called.
//
//   const fresh = keepStreamFresh(player, { url, expiresAt, renew: async () => ({ url, expiresAt }),
//                                           onFailed(error), reload(fresh, position), now })
//   fresh.stop()   // the player goes away
//
// The channel's videos and radio use it; a stage's clip can once its URLs expire too.

const TOKEN = /\/stream\/([^/?#]+)\//;
const MARGIN = 60_000; // ms before expiry a long-lived URL is renewed
const SHORTEST = 250; // ms: the soonest a renewal is asked for
const RETRY_WINDOW = 10_000; // ms: an error again this soon after a recovery is not recovered twice
const fresher = new Map(); // a token given out before -> the newest token of the same stream
const gone = new Map(); // a token -> what to do when a request with it is refused as expired (410)
let hooked = false;

/** The token of a /stream/ URL, or null. */
export function streamToken(url) {
  const match = TOKEN.exec(String(url || ''));
  return match ? match[1] : null;
}

/** `url` with its /stream/ token replaced by the newest one known for it. */
export function freshURL(url) {
  const token = streamToken(url);
  const newest = token && fresher.get(token);
  return newest && newest !== token ? String(url).replace(TOKEN, `/stream/${newest}/`) : url;
}

/** How long to wait before renewing a URL that expires in `left` ms. */
export function renewalDelay(left) {
  if (!Number.isFinite(left)) return null;
  return Math.max(SHORTEST, left > 2 * MARGIN ? left - MARGIN : left / 2);
}

function hook(videojs) {
  if (hooked) return;
  const engine = videojs.Vhs || videojs.Hls;
  if (!engine || !engine.xhr) return;
  hooked = true;
  const before = engine.xhr.beforeRequest;
  engine.xhr.beforeRequest = (options) => {
    const given = typeof before === 'function' ? before(options) || options : options;
    if (!given || !given.uri) return given;
    given.uri = freshURL(given.uri);
    const token = streamToken(given.uri);
    if (token && gone.has(token)) {
      const send = given.beforeSend;
      given.beforeSend = (xhr) => {
        if (typeof send === 'function') send(xhr);
        // Read once the headers are in: the engine aborts the other requests of a failed segment
        // when it fails, and an abort resets the status to 0 before 'load' or 'loadend' fire.
        let told = false;
        xhr.addEventListener('readystatechange', () => {
          if (told || xhr.readyState < 2) return;
          told = true;
          if (xhr.status === 410 && gone.has(token)) gone.get(token)(token);
        });
      };
    }
    return given;
  };
}

export function keepStreamFresh(player, { url, expiresAt, renew, onFailed = () => {}, reload = null, now = () => Date.now() }) {
  if (typeof window !== 'undefined' && window.videojs) hook(window.videojs);
  const tokens = new Set();
  let timer = null;
  let stopped = false;
  let recovering = false;
  let recoveredAt = -Infinity;

  let newest = null;
  let renewing = null;
  const adopt = (stream) => {
    const token = streamToken(stream.url);
    if (token) {
      newest = token;
      tokens.add(token);
      gone.set(token, refused);
      for (const old of tokens) fresher.set(old, token);
    }
    schedule(stream.expiresAt);
  };

  // A request with the newest token was refused as expired: a new one now (the engine retries).
  const refused = (token) => {
    if (stopped || token !== newest || renewing) return;
    renewing = renew().then(
      (stream) => {
        if (!stopped) adopt(stream);
      },
      (error) => {
        if (!stopped) onFailed(error);
      },
    ).finally(() => {
      renewing = null;
    });
  };

  const schedule = (until) => {
    clearTimeout(timer);
    const delay = renewalDelay(Date.parse(until) - now());
    if (delay === null || stopped) return;
    timer = setTimeout(ahead, delay);
  };

  // Before expiry: a new token for the requests to come; no reload.
  const ahead = async () => {
    if (stopped) return;
    try {
      const stream = await renew();
      if (!stopped) adopt(stream);
    } catch (_) {
      // Tried again shortly; a request that fails meanwhile is recovered below.
      if (!stopped) timer = setTimeout(ahead, 2000);
    }
  };

  const defaultReload = (stream, position, wasPlaying) => {
    player.error(null);
    player.src({ src: stream.url, type: 'application/x-mpegURL' });
    player.one('loadedmetadata', () => {
      if (position > 0) player.currentTime(position);
    });
    if (wasPlaying) {
      const started = player.play();
      if (started && started.catch) started.catch(() => {});
    }
  };

  // A request failed (most likely 410): a new URL, loaded where the player was.
  const recover = async () => {
    if (stopped || recovering) return;
    if (now() - recoveredAt < RETRY_WINDOW) {
      onFailed(player.error());
      return;
    }
    recovering = true;
    player.addClass('vjs-stream-renewing');
    const position = player.currentTime() || 0;
    const wasPlaying = player.hasStarted() && !player.paused();
    let stream;
    try {
      stream = await renew();
    } catch (error) {
      recovering = false;
      player.removeClass('vjs-stream-renewing');
      if (!stopped) onFailed(error);
      return;
    }
    if (stopped) return;
    recoveredAt = now();
    adopt(stream);
    try {
      await (reload || defaultReload)(stream, position, wasPlaying);
    } finally {
      recovering = false;
      if (player.el()) player.removeClass('vjs-stream-renewing');
    }
  };

  player.on('error', recover);
  adopt({ url, expiresAt });
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const token of tokens) {
        fresher.delete(token);
        gone.delete(token);
      }
    },
  };
}
