// The live socket client (docs/protocol.md, "The live socket").
//
// - hello → welcome (snapshot, or the events missed after lastSeq) or a hello error;
// - durable events applied exactly once in seq order, gaps filled with `resync`;
// - reconnect with backoff (0.5 s doubling to 10 s, with jitter) and lastSeq;
// - commands carry an id (crypto.randomUUID) and are sent again with the same id until acked.
//
// Events dispatched (all CustomEvent, data in `detail`):
//   status   {state}                    connecting | live | reconnecting | ended | failed
//   welcome  {welcome, resumed}          after every successful hello
//   change   {event, state}              a durable event was applied (state = the new snapshot)
//   sync     {state}                     the whole state was replaced (snapshot applied)
//   pointer  {page, x, y, visible}
//   inking   {page, tool, color, width, points} or {done: true}   the stroke being drawn (ephemeral)
//   presence {viewers}
//   pong     {t, server}                 the answer to a ping (clock.js estimates the server's clock)
//   ack      {id, seq}
//   rejected {id, code, message}         a command was refused
//   fatal    {code, message, retryAfter} hello refused (passcode_wrong, not_found, …): no reconnect;
//                                        retryAfter: seconds to wait before trying again, if any
//   message  {type, …}                    any other ephemeral message (results, questions, …)

const MIN_DELAY = 500;
const MAX_DELAY = 10000;
const PING_EVERY = 20000;
const SILENCE_LIMIT = 45000;
/** Hello errors after which reconnecting cannot help. */
const FATAL_HELLO = new Set([
  'passcode_required', 'passcode_wrong', 'rate_limited', 'not_found', 'unauthorized', 'forbidden',
  'bad_message', 'hello_required', 'not_moderator', 'name_required', 'not_a_room',
]);

export function newId() {
  if (globalThis.crypto && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // Insecure contexts (plain http on a LAN address) have no randomUUID in some browsers.
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The durable session state a client keeps, as in the welcome's snapshot. */
export function emptyState() {
  return {
    page: 1, viewport: { x: 0, y: 0, w: 1, h: 1 }, blank: 'none', locked: true, ended: false,
    polls: [], questionMode: { public: false, approval: false }, strokes: [],
  };
}

const FULL_PAGE = { x: 0, y: 0, w: 1, h: 1 };

/**
 * Applies one durable event to a state, returning the new state. Pure.
 *
 * This mirrors SessionSnapshot.apply (Sources/PodiumCore/SessionEvent.swift) event for event, so
 * the browser's snapshot is the server's: Tests/Browser/test_reducers.py replays the streams of
 * Tests/Fixtures/event-stream.json (written by the core) through it and compares every snapshot.
 */
export function applyEvent(state, event) {
  const next = { ...state, viewport: { ...state.viewport } };
  const polls = () => (next.polls = (state.polls || []).map((p) => ({ ...p })));
  const strokes = state.strokes || [];
  switch (event.type) {
    case 'page':
      next.page = event.page;
      next.viewport = { ...FULL_PAGE };
      if (next.room && next.room.deck) next.room = showRoomDeck(next.room, next.room.deck, event.page);
      break;
    case 'zoom':
      next.viewport = { ...event.viewport };
      break;
    case 'blank':
      next.blank = event.mode;
      break;
    case 'lock':
      next.locked = event.locked;
      break;
    case 'ended':
      next.ended = true;
      // Ending unlocks so viewers can finish reading at their own pace, and closes any open poll.
      next.locked = false;
      next.blank = 'none';
      delete next.spotlight; // nothing stays on screen
      delete next.playback; // nor a video
      delete next.joinInfo; // nor the join info
      for (const p of polls()) if (p.status === 'open') p.status = 'closed';
      break;
    // What the host put on screen for everyone (absent: nothing). See spotlight.js.
    case 'spotlight':
      if (event.spotlight) next.spotlight = { ...event.spotlight };
      else delete next.spotlight;
      break;
    // The video on the stage and where it is (absent: none); see docs/protocol.md, "Video on the stage".
    case 'playback':
      if (event.playback) next.playback = { ...event.playback };
      else delete next.playback;
      break;
    // The big screens show how to join (absent: they do not); see big-screen.js.
    case 'joinInfo':
      if (event.on) next.joinInfo = true;
      else delete next.joinInfo;
      break;
    // Polls: oldest first; opening one closes the one open.
    case 'pollOpened':
      polls().forEach((p) => { if (p.status === 'open') p.status = 'closed'; });
      next.polls.push({ poll: event.poll, status: 'open', resultsRevealed: false, shared: [] });
      break;
    case 'pollClosed':
      for (const p of polls()) if (p.poll.id === event.pollId) p.status = 'closed';
      break;
    case 'pollRevealed':
      for (const p of polls()) {
        if (p.poll.id !== event.pollId) continue;
        p.status = 'revealed';
        p.poll = { ...p.poll, correct: event.correct };
        p.resultsRevealed = p.resultsRevealed || event.results;
      }
      break;
    // Where the results are: shown on every viewer's device, or hidden again (docs/protocol.md).
    case 'resultsShown':
      for (const p of polls()) {
        if (p.poll.id !== event.pollId) continue;
        p.poll = { ...p.poll, showResults: event.shown };
        if (!event.shown) p.resultsRevealed = false;
      }
      break;
    case 'answerShared':
      for (const p of polls()) {
        if (p.poll.id === event.pollId) p.shared = [...(p.shared || []), { answerId: event.answerId, text: event.text }];
      }
      break;
    case 'questionMode':
      next.questionMode = { ...event.questions };
      break;
    // Ink: committed strokes, oldest first (a room's strokes and pageCleared carry `deck`).
    case 'stroke':
      if (event.stroke && !strokes.some((s) => s.id === event.stroke.id)) next.strokes = [...strokes, event.stroke];
      break;
    case 'erased':
      next.strokes = strokes.filter((s) => s.id !== event.strokeId);
      break;
    case 'pageCleared': {
      const deck = event.deck ?? null;
      next.strokes = strokes.filter((s) => !(s.page === event.page && (s.deck ?? null) === deck));
      break;
    }
    case 'deckShown':
      // The stage shows this deck at this page, with the whole page in view.
      if (next.room) next.room = showRoomDeck(next.room, event.deck, event.page);
      next.page = event.page;
      next.viewport = { ...FULL_PAGE };
      break;
    default:
      if (next.room && ROOM_EVENTS.has(event.type)) applyRoomEvent(next, event);
      break; // An event type from a newer server: its seq still counts.
  }
  return next;
}

// ---- rooms (docs/protocol.md, "Rooms"): mirrors SessionSnapshot.apply in SessionEvent.swift ----

const ROOM_EVENTS = new Set([
  'presenterJoined', 'requested', 'requestCancelled', 'control', 'doNotDisturb', 'queueCap', 'talkLength', 'talkTimerShown',
  'deckAdded', 'background',
]);

/** The room with `deck` on the stage at `page` (remembered on the deck, added to `shown`). */
function showRoomDeck(room, deck, page) {
  const shown = room.shown || [];
  return {
    ...room,
    deck,
    decks: (room.decks || []).map((d) => (d.id === deck ? { ...d, page } : d)),
    shown: shown.some((s) => s.deck === deck && s.page === page) ? shown : [...shown, { deck, page }],
  };
}

/** A fresh copy of the room's talks (RoomTalks), empty for a snapshot from an older server. */
function talksOf(room) {
  const talks = room.talks || {};
  return { defaultLength: talks.defaultLength ?? null, lengths: { ...(talks.lengths || {}) }, used: { ...(talks.used || {}) }, onProjector: Boolean(talks.onProjector) };
}

/** Applies a room event to `next` (a fresh copy of the state), replacing `next.room`. */
function applyRoomEvent(next, event) {
  const room = { ...next.room };
  const control = { ...room.control };
  const queue = control.queue || [];
  switch (event.type) {
    case 'presenterJoined': {
      const presenters = control.presenters || [];
      const known = presenters.some((p) => p.id === event.presenterId);
      control.presenters = known
        ? presenters.map((p) => (p.id === event.presenterId ? { ...p, name: event.name } : p))
        : [...presenters, { id: event.presenterId, name: event.name }];
      break;
    }
    case 'requested':
      control.queue = [...queue, event.presenterId];
      break;
    case 'requestCancelled':
      control.queue = queue.filter((id) => id !== event.presenterId);
      break;
    case 'control': {
      // The talk that ran until now keeps its time (RoomSnapshot.controlChanged).
      const talks = talksOf(room);
      const owner = (control.lender ?? null) || (control.active ?? null);
      if (owner && room.controlSince != null) {
        talks.used = { ...talks.used, [owner]: (talks.used[owner] || 0) + Math.max(0, event.at - room.controlSince) };
      }
      room.talks = talks;
      const active = event.active ?? null;
      if (active !== (control.active ?? null)) control.presenterDoNotDisturb = false;
      control.active = active;
      control.lender = event.lender ?? null;
      // Whoever gets control in their own right no longer waits for it; a borrower keeps their place.
      if (active && !control.lender) control.queue = queue.filter((id) => id !== active);
      room.controlSince = event.at;
      break;
    }
    case 'talkLength': {
      const talks = talksOf(room);
      if (event.presenterId) {
        // No length of their own: the key goes (the room's default applies), as in Swift.
        if (event.seconds == null) delete talks.lengths[event.presenterId];
        else talks.lengths[event.presenterId] = event.seconds;
      } else talks.defaultLength = event.seconds ?? null;
      room.talks = talks;
      break;
    }
    case 'talkTimerShown':
      room.talks = { ...talksOf(room), onProjector: event.on };
      break;
    case 'doNotDisturb':
      if (event.moderator) control.moderatorDoNotDisturb = event.on;
      else control.presenterDoNotDisturb = event.on;
      break;
    case 'queueCap':
      control.queueCap = event.cap ?? null;
      break;
    case 'deckAdded':
      room.decks = [...(room.decks || []), event.deck];
      break;
    case 'background':
      room.background = event.color;
      break;
    default:
      break;
  }
  room.control = control;
  next.room = room;
}

/** The deck on a room's stage ({id, title, owner, page, pages}), or null (idle, or not a room). */
export function stageDeck(state) {
  const room = state && state.room;
  if (!room || !room.deck) return null;
  return (room.decks || []).find((d) => d.id === room.deck) || null;
}

/** The committed strokes of a page of the deck on the stage (in a room, strokes carry `deck`). */
export function stageStrokes(state, page) {
  const deck = state && state.room ? state.room.deck || null : null;
  return ((state && state.strokes) || []).filter((s) => s.page === page && (s.deck || null) === deck);
}

/** The pages the stage shows: a session's deck, or in a room the deck on the stage. */
export function stagePages(session, state) {
  if (state && state.room) {
    const deck = stageDeck(state);
    return deck ? deck.pages : [];
  }
  return (session && session.pages) || [];
}

export function liveSocketURL(code) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/api/v1/sessions/' + encodeURIComponent(code) + '/live';
}

export class LiveClient extends EventTarget {
  /**
   * @param {string} code join code
   * @param {{role: 'viewer'|'presenter', name?: string, passcode?: string, token?: string}} hello
   */
  constructor(code, hello) {
    super();
    this.code = code;
    this.hello = { ...hello };
    this.state = emptyState();
    this.session = null;
    this.viewers = 0;
    this.lastSeq = null; // null until the first welcome
    this.connection = 'idle';
    this.pending = new Map(); // id -> {message, resolve, reject}
    this.buffered = new Map(); // seq -> event, waiting for a gap to fill
    this.ws = null;
    this.attempt = 0;
    /** A delay the server asked for (shutdown, a locked passcode prompt): used once. */
    this.nextDelay = null;
    /** What the server gave as the reason of the last close, until the next welcome. */
    this.closeReason = null;
    this.timer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.welcomed = false;
    this.stopped = false;
    this.resyncAsked = -1;
    this.onOnline = () => { if (this.connection === 'reconnecting') this.reconnectNow(); };
    // A phone that slept may hold a socket that died silently: check as soon as it wakes.
    this.onVisible = () => {
      if (document.visibilityState !== 'visible' || this.stopped) return;
      if (this.connection === 'reconnecting') this.reconnectNow();
      else if (this.ws && Date.now() - this.lastHeard > PING_EVERY + 5000) this.reconnectNow();
      else if (this.isOpen) this.raw({ type: 'ping', t: performance.now() });
    };
    // Modules that add to a page without its entry module's help (the projector's talk timer,
    // room-timer-overlay.js) see each live client as it is made.
    if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent('podium:live', { detail: this }));
  }

  /** Opens the socket. */
  connect() {
    this.stopped = false;
    window.addEventListener('online', this.onOnline);
    document.addEventListener('visibilitychange', this.onVisible);
    this.open();
  }

  /** Closes for good: no reconnect. */
  close() {
    this.stopped = true;
    window.removeEventListener('online', this.onOnline);
    document.removeEventListener('visibilitychange', this.onVisible);
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }

  get isOpen() {
    return this.welcomed && this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Sends a durable command ({type, ...}); an id is added. Resolves with the ack,
   * rejects with {code, message} when refused. Kept and resent after a reconnect until answered.
   */
  send(command) {
    const id = command.id || newId(); // a caller may choose the id (a stroke's id is its command's)
    const message = { ...command, id };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { message, resolve, reject });
      if (this.isOpen) this.raw(message);
    });
  }

  /** Sends an ephemeral message (pointer); dropped when not connected. */
  sendEphemeral(message) {
    if (this.isOpen) this.raw(message);
  }

  get pendingCount() {
    return this.pending.size;
  }

  // ---- internals ----

  raw(message) {
    try {
      this.ws.send(JSON.stringify(message));
    } catch (_) {
      // The socket is closing; the close handler reconnects.
    }
  }

  setConnection(state) {
    if (this.connection === state) return;
    this.connection = state;
    // reason: why the server closed the socket, when it said ('shutdown': it is restarting).
    this.emit('status', { state, reason: state === 'reconnecting' ? this.closeReason : null });
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  open() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.setConnection(this.lastSeq === null && this.attempt === 0 ? 'connecting' : this.state.ended ? 'ended' : 'reconnecting');
    this.welcomed = false;
    let ws;
    try {
      ws = new WebSocket(liveSocketURL(this.code));
    } catch (_) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      const hello = { type: 'hello', role: this.hello.role };
      if (this.hello.name) hello.name = this.hello.name;
      if (this.hello.passcode) hello.passcode = this.hello.passcode;
      if (this.hello.token) hello.token = this.hello.token;
      if (this.hello.projector) hello.projector = true; // a big screen: not counted; a video waits for the host's
      if (this.lastSeq !== null) hello.lastSeq = this.lastSeq;
      this.raw(hello);
    };
    ws.onmessage = (event) => {
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      this.handle(message);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (this.stopped) return;
      if (this.state.ended && this.welcomed) {
        // Nothing more will happen in an ended session: keep showing its last state.
        this.setConnection('ended');
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      // onclose follows.
    };
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const base = Math.min(MAX_DELAY, MIN_DELAY * 2 ** this.attempt);
    let delay = base / 2 + Math.random() * (base / 2); // jitter: between half and the whole
    if (this.nextDelay != null) {
      delay = this.nextDelay; // the server said when it is worth trying again
      this.nextDelay = null;
    }
    this.attempt += 1;
    this.setConnection(this.state.ended ? 'ended' : 'reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** Drops the current socket (if any) and reconnects at once. */
  reconnectNow() {
    if (this.stopped) return;
    this.attempt = 0;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close();
    }
    clearInterval(this.pingTimer);
    this.open();
  }

  startPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastHeard > SILENCE_LIMIT) {
        // A dead connection that never closed (Wi-Fi change, sleeping laptop).
        this.reconnectNow();
        return;
      }
      this.raw({ type: 'ping', t: performance.now() });
    }, PING_EVERY);
  }

  handle(message) {
    if (!this.welcomed) {
      if (message.type === 'welcome') this.onWelcome(message);
      else if (message.type === 'error') this.onHelloError(message);
      else if (message.type === 'reconnect') this.onReconnect(message); // a server that is stopping
      return;
    }
    switch (message.type) {
      case 'page':
      case 'zoom':
      case 'blank':
      case 'lock':
      case 'ended':
        this.onDurable(message);
        break;
      case 'pointer':
        this.emit('pointer', message);
        break;
      case 'inking':
        this.emit('inking', message);
        break;
      case 'presence':
        this.viewers = message.viewers;
        this.emit('presence', { viewers: message.viewers });
        break;
      case 'ack': {
        const entry = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (entry) entry.resolve(message);
        this.emit('ack', message);
        break;
      }
      case 'error': {
        if (message.id && this.pending.has(message.id)) {
          const entry = this.pending.get(message.id);
          this.pending.delete(message.id);
          entry.reject({ code: message.code, message: message.message });
        }
        this.emit('rejected', { id: message.id || null, code: message.code, message: message.message });
        break;
      }
      case 'reconnect':
        this.onReconnect(message);
        break;
      case 'pong':
        this.emit('pong', message); // the clock's samples (clock.js)
        break;
      default:
        // Newer features (polls, questions…): durable ones still count in the seq chain;
        // everything is passed on for the page to use.
        if (typeof message.seq === 'number') this.onDurable(message);
        else this.emit('message', message);
        break;
    }
  }

  /** The server asks us to come back (it is stopping): the close follows. */
  onReconnect(message) {
    this.attempt = 0;
    // A server shutting down takes every socket with it: spread the hall's return over a few
    // seconds, which also gives a restarting server time to listen again.
    if (message.reason === 'shutdown') this.nextDelay = 1000 + Math.random() * 4000;
    this.closeReason = message.reason || null;
  }

  onWelcome(welcome) {
    const resumed = this.lastSeq !== null;
    this.closeReason = null;
    this.welcomed = true;
    this.attempt = 0;
    this.session = welcome.session || this.session;
    if (typeof welcome.viewers === 'number') this.viewers = welcome.viewers;
    this.buffered.clear();
    this.resyncAsked = -1;
    let replayed = false;
    if (resumed && Array.isArray(welcome.events)) {
      const events = welcome.events.slice().sort((a, b) => a.seq - b.seq);
      for (const event of events) this.onDurable(event, true);
      replayed = this.lastSeq === welcome.seq;
    }
    if (!replayed) {
      // First join, or the replay did not bring us to the server's seq: take the snapshot.
      this.state = { ...emptyState(), ...welcome.snapshot };
      if (!Array.isArray(this.state.strokes)) this.state.strokes = [];
      this.lastSeq = welcome.seq;
      this.emit('sync', { state: this.state });
    }
    this.emit('welcome', { welcome, resumed });
    this.emit('presence', { viewers: this.viewers });
    this.setConnection(this.state.ended ? 'ended' : 'live');
    this.startPing();
    // Commands sent but never answered go again, with the same id: the server takes each once.
    for (const { message } of this.pending.values()) this.raw(message);
  }

  onHelloError(error) {
    if (error.code === 'ended') {
      // Older servers refuse ended sessions at hello; show that it is over.
      this.state = { ...this.state, ended: true };
      this.stop('ended', error);
      return;
    }
    if (error.code === 'rate_limited' && this.welcomed) {
      // We were in before with this passcode, yet this browser must wait (wrong guesses from
      // it since): keep the last state and come back when the wait is over.
      const wait = Number(error.retryAfter) > 0 ? Number(error.retryAfter) * 1000 : 20000;
      this.nextDelay = wait + Math.random() * 2000;
      return;
    }
    if (FATAL_HELLO.has(error.code)) {
      this.stop('failed', error);
      return;
    }
    // unavailable and the like: the close follows and we retry with backoff.
  }

  stop(connection, error) {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
    for (const entry of this.pending.values()) entry.reject({ code: error.code, message: error.message });
    this.pending.clear();
    this.setConnection(connection);
    this.emit('fatal', { code: error.code, message: error.message, retryAfter: Number(error.retryAfter) > 0 ? Number(error.retryAfter) : 0 });
  }

  /** A durable event: applied once, in order; a gap asks for the missing ones. */
  onDurable(event, fromWelcome = false) {
    if (typeof event.seq !== 'number') return;
    if (this.lastSeq !== null && event.seq <= this.lastSeq) return; // seen already
    if (this.lastSeq !== null && event.seq > this.lastSeq + 1) {
      this.buffered.set(event.seq, event);
      if (!fromWelcome && this.resyncAsked !== this.lastSeq) {
        this.resyncAsked = this.lastSeq;
        this.raw({ type: 'resync', afterSeq: this.lastSeq });
      }
      return;
    }
    this.apply(event);
    while (this.buffered.has(this.lastSeq + 1)) {
      const next = this.buffered.get(this.lastSeq + 1);
      this.buffered.delete(this.lastSeq + 1);
      this.apply(next);
    }
    for (const seq of this.buffered.keys()) if (seq <= this.lastSeq) this.buffered.delete(seq);
  }

  apply(event) {
    this.state = applyEvent(this.state, event);
    this.lastSeq = event.seq;
    this.emit('change', { event, state: this.state });
    if (event.type === 'ended') this.setConnection('ended');
  }
}
