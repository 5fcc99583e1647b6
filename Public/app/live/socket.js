// One reconnecting socket for every live document in the browser: the presentation pages
// (live.js, the live socket of docs/protocol.md) and the storyboard editor
// (storyboard/connection.js, "The storyboard socket").
//
// What it owns: opening the socket and sending the caller's hello; the welcome or the hello's
// error; reconnecting with back-off (minDelay doubling to maxDelay, each wait between half and
// the whole, from an injected random); a delay the server asks for (`reconnect` with reason
// `shutdown`: back in 1-5 s); a ping every pingEvery and a socket silent for silenceLimit dropped
// and opened again; reconnecting at once when the browser is back online or the page is shown
// again; the commands sent and not yet answered (by id, in the order sent), sent again with the
// same id after every welcome, and again after a delay when the server answers one of
// `retryCodes` ("not now: send it again").
//
// What the caller owns: the document — the hello's contents (with its lastSeq), the welcome's
// snapshot or missed events, the seq chain and its gaps, and what each frame means.
//
// WebSocket, the timers (setTimeout/clearTimeout), the clock (now) and random come from the
// options, defaulting to the browser's: a test drives connects, drops and back-off with a fake
// socket and fake timers, so nothing in it races a real timer (Tests/Browser, "socket").
//
// Events (CustomEvent, data in `detail`):
//   status   {state, reason}   connecting | live | reconnecting | closed   (closed: the caller's
//                              reconnectAfterClose said no); reason: why the server closed the
//                              last socket ('shutdown'), while reconnecting
//   open     {}                a socket opened; the hello has just been sent
//   welcome  {message, resumed}                 resumed: there was a welcome before this one
//   helloerror {message}       an error answering the hello: the caller may stop() (nothing will
//                              help) or delayNext(ms); otherwise the close follows and we retry
//   message  {message}         any frame after the welcome that is not one of the below
//   ack      {message, entry}  a command answered; entry: what send() kept (null if unknown)
//   rejected {message, entry}  an error frame after the welcome that was not retried (entry: the
//                              refused command's, or null when the error names none we sent)
//   retrying {message, entry}  a command answered with one of retryCodes: sent again soon
//   error    {code, message, id, retryAfter, hello}   every error frame the server sends, before
//                              the rest is done with it: for pages to react (a banner when the
//                              server says it cannot store anything)
//   reconnect {reason}         the server said it is going away

/** The browser's WebSocket and timers, looked up when used (a test may replace them first). */
function browserDefaults() {
  const g = globalThis;
  return {
    WebSocket: g.WebSocket,
    setTimeout: (fn, ms) => g.setTimeout(fn, ms),
    clearTimeout: (handle) => g.clearTimeout(handle),
    now: () => Date.now(),
    random: () => Math.random(),
    window: typeof g.window !== 'undefined' ? g.window : null,
    document: typeof g.document !== 'undefined' ? g.document : null,
  };
}

export class ReconnectingSocket extends EventTarget {
  /**
   * @param {object} o
   * @param {string|(() => string)} o.url
   * @param {() => object} o.hello                the first message of every socket (built each time)
   * @param {number} [o.minDelay=500]             the first reconnect's wait (its upper bound)
   * @param {number} [o.maxDelay=10000]           the longest wait
   * @param {number} [o.pingEvery=20000]
   * @param {number} [o.silenceLimit=45000]       a socket that heard nothing this long is dropped
   * @param {() => object} [o.ping]               the ping frame ({type: 'ping', t: performance.now()})
   * @param {Object<string, number>} [o.retryCodes]  error code -> base delay (ms) before a command
   *                                               answered with it is sent again (base..2×base)
   * @param {(welcomed: boolean) => boolean} [o.reconnectAfterClose]  false: stay closed
   * @param {Function} [o.WebSocket]  @param {Function} [o.setTimeout]  @param {Function} [o.clearTimeout]
   * @param {() => number} [o.now]    @param {() => number} [o.random]
   * @param {EventTarget|null} [o.window]   online events; null: none
   * @param {Document|EventTarget|null} [o.document]   visibilitychange; null: none
   */
  constructor(o) {
    super();
    const env = { ...browserDefaults(), ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) };
    this.env = env;
    this.url = o.url;
    this.helloOf = o.hello;
    this.minDelay = o.minDelay ?? 500;
    this.maxDelay = o.maxDelay ?? 10000;
    this.pingEvery = o.pingEvery ?? 20000;
    this.silenceLimit = o.silenceLimit ?? 45000;
    this.pingOf = o.ping || (() => ({ type: 'ping', t: typeof performance !== 'undefined' ? performance.now() : env.now() }));
    this.retryCodes = o.retryCodes || {};
    this.reconnectAfterClose = o.reconnectAfterClose || (() => true);
    /** id -> {message, ...what the caller keeps with it}, in the order sent: not answered yet. */
    this.pending = new Map();
    this.ws = null;
    this.state = 'idle';
    this.welcomed = false; // this socket has been welcomed
    this.everWelcomed = false;
    this.stopped = true; // until connect()
    this.suspended = false;
    this.attempt = 0;
    /** A delay the server asked for (shutdown, a locked passcode prompt): used once. */
    this.nextDelay = null;
    /** What the server gave as the reason of the last close, until the next welcome. */
    this.closeReason = null;
    this.lastHeard = 0;
    this.timer = null;
    this.pingTimer = null;
    this.retryTimers = new Set();
    this.onOnline = () => {
      if (this.state === 'reconnecting') this.reconnectNow();
    };
    // A phone that slept may hold a socket that died silently: check as soon as it wakes.
    this.onVisible = () => {
      const doc = this.env.document;
      if ((doc && doc.visibilityState && doc.visibilityState !== 'visible') || this.stopped || this.suspended) return;
      if (this.state === 'reconnecting') this.reconnectNow();
      else if (this.ws && this.env.now() - this.lastHeard > this.pingEvery + 5000) this.reconnectNow();
      else if (this.isOpen) this.raw(this.pingOf());
    };
  }

  /** Opens the socket (and keeps one open until stop()). */
  connect() {
    this.stopped = false;
    this.suspended = false;
    if (this.env.window) this.env.window.addEventListener('online', this.onOnline);
    if (this.env.document) this.env.document.addEventListener('visibilitychange', this.onVisible);
    this.open();
  }

  /** Closes for good: no reconnect. What is pending stays in `pending` for the caller. */
  stop() {
    this.stopped = true;
    if (this.env.window) this.env.window.removeEventListener('online', this.onOnline);
    if (this.env.document) this.env.document.removeEventListener('visibilitychange', this.onVisible);
    this.clearTimers();
    this.dropSocket();
  }

  /** Closes the socket and keeps it closed until resume() (a page going into the back/forward cache). */
  suspend() {
    if (this.stopped || this.suspended) return;
    this.suspended = true;
    this.clearTimers();
    this.dropSocket();
    this.welcomed = false;
    this.setState('reconnecting');
  }

  /** Opens again at once after suspend(). */
  resume() {
    if (this.stopped || !this.suspended) return;
    this.suspended = false;
    this.reconnectNow();
  }

  /** The next reconnect waits this long instead of the back-off (the server said when). */
  delayNext(ms) {
    this.nextDelay = ms;
  }

  get isOpen() {
    return Boolean(this.welcomed && this.ws && this.ws.readyState === (this.env.WebSocket.OPEN ?? 1));
  }

  /**
   * A command that needs an answer: kept under `id` with `extra` until ack or error, sent now if
   * welcomed and again after every welcome. Returns the entry kept.
   */
  send(id, message, extra = {}) {
    const entry = { ...extra, message };
    this.pending.set(id, entry);
    if (this.isOpen) this.raw(message);
    return entry;
  }

  /** Forgets a pending command (it will not be sent again). */
  forget(id) {
    this.pending.delete(id);
  }

  /** Sends a frame now if welcomed (ephemeral: dropped otherwise). Returns whether it went. */
  sendNow(message) {
    if (!this.isOpen) return false;
    this.raw(message);
    return true;
  }

  /** Sends on the socket as it is (a hello, a resync); a closing socket drops it. */
  raw(message) {
    if (!this.ws) return;
    try {
      this.ws.send(JSON.stringify(message));
    } catch (_) {
      // The socket is closing; the close handler reconnects.
    }
  }

  /** Drops the current socket (if any) and opens another at once. */
  reconnectNow() {
    if (this.stopped || this.suspended) return;
    this.attempt = 0;
    this.dropSocket();
    this.env.clearTimeout(this.pingTimer);
    this.open();
  }

  // ---- internals ----

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('status', { state, reason: state === 'reconnecting' ? this.closeReason : null });
  }

  clearTimers() {
    this.env.clearTimeout(this.timer);
    this.env.clearTimeout(this.pingTimer);
    for (const handle of this.retryTimers) this.env.clearTimeout(handle);
    this.retryTimers.clear();
    this.timer = null;
    this.pingTimer = null;
  }

  dropSocket() {
    if (!this.ws) return;
    const ws = this.ws;
    this.ws = null;
    ws.onclose = null;
    try {
      ws.close();
    } catch (_) {
      // already closed
    }
  }

  urlNow() {
    return typeof this.url === 'function' ? this.url() : this.url;
  }

  open() {
    this.env.clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped || this.suspended) return;
    this.setState(!this.everWelcomed && this.attempt === 0 ? 'connecting' : 'reconnecting');
    this.welcomed = false;
    let ws;
    try {
      ws = new this.env.WebSocket(this.urlNow());
    } catch (_) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.lastHeard = this.env.now();
      this.raw(this.helloOf());
      this.emit('open', {});
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      this.lastHeard = this.env.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      if (message && typeof message === 'object') this.handle(message);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      const welcomed = this.welcomed;
      this.welcomed = false;
      this.env.clearTimeout(this.pingTimer);
      if (this.stopped) return;
      if (!this.reconnectAfterClose(welcomed)) {
        this.setState('closed');
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      // onclose follows.
    };
  }

  scheduleReconnect() {
    if (this.stopped || this.suspended) return;
    const base = Math.min(this.maxDelay, this.minDelay * 2 ** this.attempt);
    let delay = base / 2 + this.env.random() * (base / 2); // jitter: between half and the whole
    if (this.nextDelay != null) {
      delay = this.nextDelay; // the server said when it is worth trying again
      this.nextDelay = null;
    }
    this.attempt += 1;
    this.setState('reconnecting');
    this.env.clearTimeout(this.timer);
    this.timer = this.env.setTimeout(() => this.open(), delay);
  }

  startPing() {
    this.env.clearTimeout(this.pingTimer);
    const tick = () => {
      if (!this.ws || this.stopped) return;
      if (this.env.now() - this.lastHeard > this.silenceLimit) {
        // A dead connection that never closed (Wi-Fi change, sleeping laptop).
        this.reconnectNow();
        return;
      }
      this.raw(this.pingOf());
      this.pingTimer = this.env.setTimeout(tick, this.pingEvery);
    };
    this.pingTimer = this.env.setTimeout(tick, this.pingEvery);
  }

  handle(message) {
    if (message.type === 'error') this.emitError(message);
    if (!this.welcomed) {
      if (message.type === 'welcome') this.onWelcome(message);
      else if (message.type === 'error') this.emit('helloerror', { message });
      else if (message.type === 'reconnect') this.onReconnect(message); // a server that is stopping
      return;
    }
    switch (message.type) {
      case 'ack': {
        const entry = this.pending.get(message.id) || null;
        this.pending.delete(message.id);
        this.emit('ack', { message, entry });
        break;
      }
      case 'error':
        this.onCommandError(message);
        break;
      case 'reconnect':
        this.onReconnect(message);
        break;
      default:
        this.emit('message', { message });
        break;
    }
  }

  emitError(message) {
    this.emit('error', {
      code: message.code, message: message.message, id: message.id || null,
      retryAfter: Number(message.retryAfter) > 0 ? Number(message.retryAfter) : 0, hello: !this.welcomed,
    });
  }

  onCommandError(message) {
    const entry = message.id ? this.pending.get(message.id) || null : null;
    const base = this.retryCodes[message.code];
    if (entry && base != null) {
      // The server could not take it just now: the same id again a little later.
      const handle = this.env.setTimeout(() => {
        this.retryTimers.delete(handle);
        if (this.pending.get(message.id) === entry && this.isOpen) this.raw(entry.message);
      }, base + this.env.random() * base);
      this.retryTimers.add(handle);
      this.emit('retrying', { message, entry });
      return;
    }
    if (entry) this.pending.delete(message.id);
    this.emit('rejected', { message, entry });
  }

  /** The server asks us to come back (it is stopping): the close follows. */
  onReconnect(message) {
    this.attempt = 0;
    // A server shutting down takes every socket with it: spread the hall's return over a few
    // seconds, which also gives a restarting server time to listen again.
    if (message.reason === 'shutdown') this.nextDelay = 1000 + this.env.random() * 4000;
    this.closeReason = message.reason || null;
    this.emit('reconnect', { reason: this.closeReason });
  }

  onWelcome(message) {
    const resumed = this.everWelcomed;
    this.welcomed = true;
    this.everWelcomed = true;
    this.attempt = 0;
    this.emit('welcome', { message, resumed });
    this.closeReason = null;
    if (!this.welcomed || this.stopped) return; // the caller stopped on it
    this.setState('live');
    this.startPing();
    // Commands sent but never answered go again, in order, with the same id: the server takes each once.
    for (const { message: command } of this.pending.values()) this.raw(command);
  }
}
