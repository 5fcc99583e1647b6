// The live socket client (docs/protocol.md, "The live socket").
//
// - hello → welcome (snapshot, or the events missed after lastSeq) or a hello error;
// - durable events applied exactly once in seq order, gaps filled with `resync`;
// - reconnect with backoff (0.5 s doubling to 10 s, with jitter) and lastSeq;
// - commands carry an id (crypto.randomUUID) and are sent again with the same id until acked.
// The socket itself (connect, back-off, ping, shutdown, resend) is live/socket.js, shared with the
// storyboard editor; this module keeps the session's state and its seq chain.
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
//   error    {code, message, id, retryAfter, hello}   every error the server sends (socket.js)
//   message  {type, …}                    any other ephemeral message (results, questions, …)

import { ReconnectingSocket } from './socket.js';

const MIN_DELAY = 500;
const MAX_DELAY = 10000;
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
    polls: [], questionMode: { public: false, approval: false }, strokes: [], recording: false,
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
      next.recording = false; // and recording stops
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
    // The presenter records the session for its replay (docs/protocol.md, "Replay").
    case 'recording':
      next.recording = event.on === true;
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
   * @param {object} [env] for tests: WebSocket, setTimeout, clearTimeout, now, random, window,
   *                       document, url (see live/socket.js); the browser's by default
   */
  constructor(code, hello, env = {}) {
    super();
    this.code = code;
    this.hello = { ...hello };
    this.state = emptyState();
    this.session = null;
    this.viewers = 0;
    this.lastSeq = null; // null until the first welcome
    this.connection = 'idle';
    this.buffered = new Map(); // seq -> event, waiting for a gap to fill
    this.resyncAsked = -1;
    this.socket = new ReconnectingSocket({
      ...env,
      url: env.url || (() => liveSocketURL(this.code)),
      hello: () => this.helloMessage(),
      minDelay: MIN_DELAY,
      maxDelay: MAX_DELAY,
      // Nothing more will happen in an ended session: keep showing its last state.
      reconnectAfterClose: (welcomed) => !(this.state.ended && welcomed),
    });
    const on = (type, handler) => this.socket.addEventListener(type, (event) => handler(event.detail));
    on('status', ({ state, reason }) => this.onStatus(state, reason));
    on('welcome', ({ message }) => this.onWelcome(message));
    on('helloerror', ({ message }) => this.onHelloError(message));
    on('message', ({ message }) => this.onMessage(message));
    on('ack', ({ message, entry }) => {
      if (entry) entry.resolve(message);
      this.emit('ack', message);
    });
    on('rejected', ({ message, entry }) => {
      if (entry) entry.reject({ code: message.code, message: message.message });
      this.emit('rejected', { id: message.id || null, code: message.code, message: message.message });
    });
    // Every error the server sends, before the rest: for a page to react (a banner).
    on('error', (detail) => this.emit('error', detail));
    // Modules that add to a page without its entry module's help (the projector's talk timer,
    // rooms/timer-overlay.js) see each live client as it is made.
    if (typeof window !== 'undefined') window.dispatchEvent(new CustomEvent('podium:live', { detail: this }));
  }

  /** Opens the socket. */
  connect() {
    this.socket.connect();
  }

  /** Closes for good: no reconnect. */
  close() {
    this.socket.stop();
  }

  get stopped() {
    return this.socket.stopped;
  }

  get isOpen() {
    return this.socket.isOpen;
  }

  /** The commands sent and not answered yet: id -> {message, resolve, reject}. */
  get pending() {
    return this.socket.pending;
  }

  /**
   * Sends a durable command ({type, ...}); an id is added. Resolves with the ack,
   * rejects with {code, message} when refused. Kept and resent after a reconnect until answered.
   */
  send(command) {
    const id = command.id || newId(); // a caller may choose the id (a stroke's id is its command's)
    const message = { ...command, id };
    return new Promise((resolve, reject) => {
      this.socket.send(id, message, { resolve, reject });
    });
  }

  /** Sends an ephemeral message (pointer); dropped when not connected. */
  sendEphemeral(message) {
    this.socket.sendNow(message);
  }

  get pendingCount() {
    return this.socket.pending.size;
  }

  /** Sends as it is on the open socket (clock.js's pings). */
  raw(message) {
    this.socket.raw(message);
  }

  // ---- internals ----

  helloMessage() {
    const hello = { type: 'hello', role: this.hello.role };
    if (this.hello.name) hello.name = this.hello.name;
    if (this.hello.passcode) hello.passcode = this.hello.passcode;
    if (this.hello.token) hello.token = this.hello.token;
    if (this.hello.projector) hello.projector = true; // a big screen: not counted; a video waits for the host's
    if (this.lastSeq !== null) hello.lastSeq = this.lastSeq;
    return hello;
  }

  setConnection(state) {
    if (this.connection === state) return;
    this.connection = state;
    // reason: why the server closed the socket, when it said ('shutdown': it is restarting).
    this.emit('status', { state, reason: state === 'reconnecting' ? this.socket.closeReason : null });
  }

  /** The socket's state as this page says it: an ended session stays "ended". */
  onStatus(state) {
    if (state === 'connecting') this.setConnection('connecting');
    else if (state === 'closed') this.setConnection('ended');
    else if (state === 'reconnecting') this.setConnection(this.state.ended ? 'ended' : 'reconnecting');
    // 'live' is set by onWelcome, once the welcome is applied.
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  onMessage(message) {
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

  onWelcome(welcome) {
    const resumed = this.lastSeq !== null;
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
    // The socket then pings, and sends again what was never answered, with the same id.
  }

  onHelloError(error) {
    if (error.code === 'ended') {
      // Older servers refuse ended sessions at hello; show that it is over.
      this.state = { ...this.state, ended: true };
      this.stop('ended', error);
      return;
    }
    if (FATAL_HELLO.has(error.code)) {
      this.stop('failed', error);
      return;
    }
    // unavailable and the like: the close follows and we retry with backoff.
  }

  stop(connection, error) {
    this.socket.stop();
    for (const entry of this.socket.pending.values()) entry.reject({ code: error.code, message: error.message });
    this.socket.pending.clear();
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
        this.socket.raw({ type: 'resync', afterSeq: this.lastSeq });
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
