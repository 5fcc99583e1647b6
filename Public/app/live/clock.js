// The server's clock, estimated over the live socket (docs/protocol.md, "The server's clock").
//
// NTP-style: a ping carries our clock's time t0 (performance.now(), which never jumps); the pong
// brings it back with the server's time as it answered. The server's time at the pong's arrival
// t1 is about server + (t1 - t0) / 2. Of the recent samples, the one with the shortest round trip
// carries the least error (the asymmetry of a round trip is at most half of it), so its offset is
// the estimate. A burst of pings after each welcome gives a good sample quickly; while a video is
// on the stage one more every few seconds keeps the estimate fresh.
//
//   const clock = serverClock(live);   // one per LiveClient
//   clock.now()                         // the server's time now, seconds since 1970 (null before a pong)
//   clock.error                         // half the best round trip, seconds: how wrong now() may be

const KEEP = 12; // samples kept
const BURST = 5; // pings right after a welcome
const BURST_GAP = 120; // ms between them
const clocks = new WeakMap();

/** The clock of `live`, made once. */
export function serverClock(live) {
  let clock = clocks.get(live);
  if (!clock) {
    clock = new ServerClock(live);
    clocks.set(live, clock);
  }
  return clock;
}

/** The best estimate of (server time − local time) from pong samples: that of the shortest round trip. */
export function bestOffset(samples) {
  let best = null;
  for (const sample of samples) if (!best || sample.rtt < best.rtt) best = sample;
  return best;
}

export class ServerClock extends EventTarget {
  constructor(live) {
    super();
    this.live = live;
    this.samples = []; // {offset (ms: server − local), rtt (ms)}
    this.best = null;
    this.keepFresh = null;
    live.addEventListener('pong', (event) => this.onPong(event.detail));
    live.addEventListener('welcome', () => this.burst());
    if (live.isOpen) this.burst();
  }

  /** The server's time now in seconds since 1970, or null before the first pong. */
  now() {
    if (!this.best) return null;
    return (performance.now() + this.best.offset) / 1000;
  }

  /** How far off now() may be, in seconds (half the best round trip). */
  get error() {
    return this.best ? this.best.rtt / 2000 : Infinity;
  }

  burst() {
    for (let i = 0; i < BURST; i += 1) setTimeout(() => this.ping(), i * BURST_GAP);
  }

  ping() {
    if (this.live.isOpen) this.live.raw({ type: 'ping', t: performance.now() });
  }

  /** Pings every `ms` while on (a video on the stage), none while off. */
  stayFresh(on, ms = 5000) {
    if (on && !this.keepFresh) this.keepFresh = setInterval(() => this.ping(), ms);
    if (!on && this.keepFresh) {
      clearInterval(this.keepFresh);
      this.keepFresh = null;
    }
  }

  onPong(pong) {
    const arrived = performance.now();
    if (typeof pong.t !== 'number' || typeof pong.server !== 'number') return;
    const rtt = arrived - pong.t;
    if (!(rtt >= 0) || rtt > 60000) return; // a pong of another page's clock, or nonsense
    // performance.now() counts from this page's start: the server's time maps onto it.
    const offset = pong.server * 1000 + rtt / 2 - arrived;
    this.samples.push({ offset, rtt });
    if (this.samples.length > KEEP) this.samples.shift();
    const first = !this.best;
    this.best = bestOffset(this.samples);
    if (first) this.dispatchEvent(new CustomEvent('ready'));
  }
}
