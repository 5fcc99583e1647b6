// The storyboard socket client (/api/v1/storyboards/{id}/live; the wire of the storyboards design).
//
// - hello (the API token when the page has one; a signed-in browser is known by its cookie; on a
//   reconnect, `lastSeq`: the seq of the content held) → welcome {seq, storyboard, you, editors},
//   with `missed` (the `edited` frames after lastSeq) when resuming: those are applied to the
//   content held, passed on as `edited` before the `welcome`, instead of replacing it;
// - edits, undo and redo carry a client-made id and stay "unacknowledged" until the server answers
//   with ack (or error); after a reconnect every unacknowledged one is sent again, in order, with
//   the same id (the server takes each id once, and acknowledges a repeat with its seq);
// - an edit answered with the error `retry` ("send it again") goes again with the same id, as do
//   `unavailable` and `rate_limited` a little later; none of them is shown to the person;
// - reconnect with backoff (0.5 s doubling to 4 s, with jitter), ping every 20 s, a silent socket
//   (45 s) is dropped and opened again: ../live/socket.js, the socket the live pages use too;
// - closed on `pagehide` (a page in the back/forward cache holds no socket), opened again on
//   `pageshow`;
// - `drawing` and `cursor` frames are ephemeral: only the latest is kept, sent at most ~30 per second,
//   dropped while disconnected.
//
// The save state (`save` event, and `saveState`): "saving" while anything is unacknowledged,
// "saved" when every edit is acknowledged, "offline" when disconnected (what is pending is resent
// on the way back), "failed" when the server refused the hello for good.
//
// Events (CustomEvent, data in `detail`):
//   welcome  {seq, storyboard, you, editors, resumed, missed}   missed: the frames a resumed welcome
//                                           brought (already passed on as `edited`; storyboard
//                                           null: keep the content held), or null (a snapshot)
//   edited   {seq, author, by, edit}        every durable edit, in seq order (our own included)
//   ack      {id, seq}
//   rejected {id, code, message, kind}      an edit, undo or redo the server refused
//   editors  {editors}
//   drawing  {editor, shot, layer, stroke}
//   cursor   {editor, shot, x, y}
//   status   {state}                        connecting | live | offline | failed
//   save     {state, pending}               saving | saved | offline | failed
//   fatal    {code, message}
//   error    {code, message, id, retryAfter, hello}   every error the server sends (socket.js)
import { t } from '../core/i18n.js';
import { ReconnectingSocket } from '../live/socket.js';

const MIN_DELAY = 500;
const MAX_DELAY = 4000; // an editor with unsaved work comes back quickly
const EPHEMERAL_MS = 33; // ~30 per second
const FATAL = new Set(['unauthorized', 'forbidden', 'not_found', 'bad_message', 'hello_required', 'full']);
/**
 * Refusals of a command that say "not now": it is kept and sent again, same id, after base..2×base
 * ms. `retry`: the server asks for it again (it was catching up); not shown to the person.
 */
const RETRY = Object.freeze({ unavailable: 700, rate_limited: 700, retry: 50 });

/** A client-made id: 1…64 characters of [A-Za-z0-9_-]. */
export function newId(prefix = '') {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  let id = '';
  for (const b of bytes) id += (b % 36).toString(36);
  return (prefix + id).slice(0, 64);
}

export function storyboardSocketURL(id) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return scheme + '//' + location.host + '/api/v1/storyboards/' + encodeURIComponent(id) + '/live';
}

export class StoryboardConnection extends EventTarget {
  /**
   * @param {string} storyboardId
   * @param {{token?: string, url?: string}} [options]  and, for tests: WebSocket, setTimeout,
   *   clearTimeout, now, random, window, document (see ../live/socket.js); the browser's by default
   */
  constructor(storyboardId, options = {}) {
    super();
    const { token, url, ...env } = options;
    this.storyboardId = storyboardId;
    this.token = token || null;
    this.url = url || storyboardSocketURL(storyboardId);
    /** The seq of the content this page holds (the last `edited` applied); null before the first welcome. */
    this.seq = null;
    this.you = null;
    this.editors = [];
    this.state = 'idle';
    this.saveState = 'saved';
    this.ephemeral = new Map(); // type -> latest frame waiting for its slot
    this.ephemeralLast = new Map(); // type -> time the last one left
    this.ephemeralTimers = new Map();
    this.socket = new ReconnectingSocket({
      ...env,
      url: this.url,
      hello: () => this.helloMessage(),
      minDelay: MIN_DELAY,
      maxDelay: MAX_DELAY,
      retryCodes: RETRY,
    });
    this.timers = this.socket.env;
    const on = (type, handler) => this.socket.addEventListener(type, (event) => handler(event.detail));
    on('status', ({ state }) => this.onStatus(state));
    on('welcome', ({ message }) => this.onWelcome(message));
    on('helloerror', ({ message }) => this.onHelloError(message));
    on('message', ({ message }) => this.onMessage(message));
    on('ack', ({ message, entry }) => {
      this.emit('ack', { id: message.id, seq: message.seq, kind: entry ? entry.kind : null });
      this.updateSave();
    });
    on('rejected', ({ message, entry }) => {
      this.emit('rejected', { id: message.id || null, code: message.code, message: message.message, kind: entry ? entry.kind : null });
      this.updateSave();
    });
    on('error', (detail) => this.emit('error', detail));
    // A page put in the back/forward cache must not keep its socket (the person would still show
    // as editing and hold an editor's place): close on pagehide, open again on pageshow.
    this.onPageHide = () => this.suspend();
    this.onPageShow = (event) => {
      if (event.persisted || this.socket.suspended) this.resume();
    };
  }

  /** What the server has not acknowledged yet: id -> {message, kind}, in the order sent. */
  get unacked() {
    return this.socket.pending;
  }

  get stopped() {
    return this.socket.stopped;
  }

  get suspended() {
    return this.socket.suspended;
  }

  connect() {
    const win = this.socket.env.window;
    if (win) {
      win.addEventListener('pagehide', this.onPageHide);
      win.addEventListener('pageshow', this.onPageShow);
    }
    this.socket.connect();
  }

  /** The page is being left (maybe into the back/forward cache): the socket closes, what is unacknowledged is kept. */
  suspend() {
    if (this.socket.stopped || this.socket.suspended) return;
    this.clearEphemeral();
    this.socket.suspend();
  }

  /** The page is shown again (back from the cache): reconnect at once, resuming from the last seq. */
  resume() {
    this.socket.resume();
  }

  close() {
    const win = this.socket.env.window;
    if (win) {
      win.removeEventListener('pagehide', this.onPageHide);
      win.removeEventListener('pageshow', this.onPageShow);
    }
    this.clearEphemeral();
    this.socket.stop();
  }

  get isOpen() {
    return this.socket.isOpen;
  }

  get pendingCount() {
    return this.socket.pending.size;
  }

  /** Sends an edit under `id` (kept and resent until acknowledged). */
  sendEdit(id, edit) {
    this.queue(id, { type: 'edit', id, edit }, 'edit');
  }

  /** Asks the server to undo (or redo) this person's newest edit. Returns the command's id. */
  sendUndo(redo = false) {
    const id = newId(redo ? 'r' : 'u');
    this.queue(id, { type: redo ? 'redo' : 'undo', id }, redo ? 'redo' : 'undo');
    return id;
  }

  /** The stroke being drawn (ephemeral): {tool, color, width, points}; null once it ended. */
  sendDrawing(shot, layer, stroke) {
    const drawn = stroke ? { tool: stroke.tool, color: stroke.color, width: stroke.width, points: stroke.points } : null;
    this.sendEphemeral({ type: 'drawing', shot, layer, stroke: drawn });
  }

  /** Where this person's pointer is on a shot (ephemeral). */
  sendCursor(shot, x, y) {
    this.sendEphemeral({ type: 'cursor', shot, x, y });
  }

  // ---- internals ----

  helloMessage() {
    const hello = { type: 'hello' };
    if (this.token) hello.token = this.token;
    // Resume: the server answers with the `edited` frames after it in `missed` (docs/protocol.md).
    if (this.seq !== null) hello.lastSeq = this.seq;
    return hello;
  }

  queue(id, message, kind) {
    this.socket.send(id, message, { kind });
    this.updateSave();
  }

  clearEphemeral() {
    for (const handle of this.ephemeralTimers.values()) this.timers.clearTimeout(handle);
    this.ephemeralTimers.clear();
    this.ephemeral.clear();
  }

  sendEphemeral(frame) {
    if (!this.isOpen) return;
    const type = frame.type;
    this.ephemeral.set(type, frame);
    if (this.ephemeralTimers.has(type)) return;
    const wait = EPHEMERAL_MS - (this.timers.now() - (this.ephemeralLast.get(type) ?? -Infinity));
    const flush = () => {
      this.ephemeralTimers.delete(type);
      const latest = this.ephemeral.get(type);
      this.ephemeral.delete(type);
      if (!latest || !this.isOpen) return;
      this.ephemeralLast.set(type, this.timers.now());
      this.socket.raw(latest);
    };
    if (wait <= 0) flush();
    else this.ephemeralTimers.set(type, this.timers.setTimeout(flush, wait));
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  onStatus(state) {
    if (state === 'connecting') this.setState('connecting');
    else if (state === 'reconnecting' || state === 'closed') {
      if (state === 'reconnecting' && this.state !== 'offline') this.clearEphemeral();
      this.setState('offline');
    }
    // 'live' is set by onWelcome, once the page has the welcome.
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('status', { state });
    this.updateSave();
  }

  updateSave() {
    let state;
    const pending = this.socket.pending.size;
    if (this.state === 'failed') state = 'failed';
    else if (this.state === 'connecting' || this.state === 'idle') state = 'connecting';
    else if (this.state !== 'live') state = 'offline';
    else state = pending ? 'saving' : 'saved';
    const changed = state !== this.saveState || this.lastPending !== pending;
    this.saveState = state;
    this.lastPending = pending;
    if (changed) this.emit('save', { state, pending });
  }

  onMessage(message) {
    switch (message.type) {
      case 'edited':
        this.onEdited(message);
        break;
      case 'editors':
        this.editors = message.editors || [];
        this.emit('editors', { editors: this.editors });
        break;
      case 'drawing':
        this.emit('drawing', message);
        break;
      case 'cursor':
        this.emit('cursor', message);
        break;
      case 'pong':
        this.emit('pong', message);
        break;
      default:
        break;
    }
  }

  /** An `edited` frame: passed on once, in seq order (one seen already is dropped). */
  onEdited(message) {
    if (typeof message.seq === 'number') {
      if (this.seq !== null && message.seq <= this.seq) return; // seen already
      this.seq = message.seq;
    }
    this.emit('edited', message);
  }

  onWelcome(welcome) {
    const resumed = this.seq !== null;
    const held = this.seq;
    this.you = welcome.you || null;
    this.editors = welcome.editors || [];
    // A resumed welcome brings what happened since the content we hold (`missed`, the `edited`
    // frames after our lastSeq, in order): applied on top of it, not replacing it. Without
    // `missed` (a first join, an older server, or one that no longer has them), the snapshot.
    const missed = resumed && Array.isArray(welcome.missed) ? welcome.missed.slice().sort((a, b) => a.seq - b.seq) : null;
    if (missed) {
      for (const frame of missed) this.onEdited(frame);
      if (typeof welcome.seq === 'number' && this.seq !== welcome.seq && welcome.storyboard) {
        // The frames did not reach the server's seq: start again from its content.
        this.seq = welcome.seq;
        this.emit('welcome', { seq: this.seq, storyboard: welcome.storyboard, you: this.you, editors: this.editors, resumed, missed: null });
      } else {
        this.emit('welcome', { seq: this.seq, storyboard: null, you: this.you, editors: this.editors, resumed, missed, from: held });
      }
    } else {
      this.seq = typeof welcome.seq === 'number' ? welcome.seq : 0;
      // The page rebuilds its view from the snapshot and what is still unacknowledged (see
      // StoryDoc), before those are sent again.
      this.emit('welcome', { seq: this.seq, storyboard: welcome.storyboard, you: this.you, editors: this.editors, resumed, missed: null });
    }
    this.emit('editors', { editors: this.editors });
    this.setState('live');
    this.updateSave();
    // The socket then pings, and sends every unacknowledged command again, in order.
  }

  onHelloError(error) {
    if (FATAL.has(error.code)) {
      this.socket.stop();
      this.setState('failed');
      this.emit('fatal', { code: error.code, message: error.message });
    }
    // Anything else: the close follows and we try again.
  }

  /** The unacknowledged edits, oldest first: [{id, edit}] (undo and redo are not edits). */
  pendingEdits() {
    const out = [];
    for (const [id, { message, kind }] of this.socket.pending) if (kind === 'edit') out.push({ id, edit: message.edit });
    return out;
  }
}

/** The words of a save state, for the indicator (in the page's language). */
export const SAVE_TEXT = Object.freeze({
  get connecting() { return t('storyboard.save.connecting'); },
  get saving() { return t('storyboard.save.saving'); },
  get saved() { return t('storyboard.save.saved'); },
  get offline() { return t('storyboard.save.offline'); },
  get failed() { return t('storyboard.save.failed'); },
});
