// A fake WebSocket and fake timers for live/socket.js and its users (live.js, the storyboard's
// connection.js): nothing happens until the test says so. A socket opens when the test calls
// open(), time moves only with advance(ms) (running the timers due, in order), and random() is
// env.randomValue. No real timer takes part, so a reconnect cannot race the test.
//
// The browser tests (Tests/Browser/run_browser_tests.py, FAKE_ENV_JS) read this same file and put
// it into pages without its `export`: keep it one plain function.
export const fakeEnv = () => {
  const clock = { t: 1000, timers: [], next: 1 };
  const env = { randomValue: 0.5, sockets: [] };
  env.now = () => clock.t;
  env.random = () => env.randomValue;
  env.setTimeout = (fn, ms) => {
    const id = clock.next++;
    clock.timers.push({ id, at: clock.t + Math.max(0, Number(ms) || 0), fn });
    return id;
  };
  env.clearTimeout = (id) => { clock.timers = clock.timers.filter((timer) => timer.id !== id); };
  /** Moves the clock on by ms, running each timer that falls due on the way, in order. */
  env.advance = (ms) => {
    const end = clock.t + ms;
    for (;;) {
      const due = clock.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      clock.timers = clock.timers.filter((timer) => timer !== due);
      clock.t = due.at;
      due.fn();
    }
    clock.t = end;
  };
  /** How long until each timer waiting now, soonest first. */
  env.waits = () => clock.timers.map((timer) => timer.at - clock.t).sort((a, b) => a - b);
  env.window = new EventTarget();
  env.document = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  class FakeSocket {
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; this.closed = false; env.sockets.push(this); }
    open() { this.readyState = 1; if (this.onopen) this.onopen({}); }
    send(text) { if (this.readyState !== 1) throw new Error('not open'); this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; this.closed = true; }
    receive(message) { this.onmessage({ data: JSON.stringify(message) }); }
    drop() { this.readyState = 3; if (this.onclose) this.onclose({}); }
  }
  FakeSocket.OPEN = 1;
  env.WebSocket = FakeSocket;
  return env;
};
