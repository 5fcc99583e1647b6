// The storyboard socket client (/api/v1/storyboards/{id}/live; the wire of the storyboards design).
//
// - hello (the API token when the page has one; a signed-in browser is known by its cookie) →
//   welcome {seq, storyboard, you, editors};
// - edits, undo and redo carry a client-made id and stay "unacknowledged" until the server answers
//   with ack (or error); after a reconnect every unacknowledged one is sent again, in order, with
//   the same id (the server takes each id once, and acknowledges a repeat with its seq);
// - reconnect with backoff (0.5 s doubling to 4 s, with jitter), ping every 20 s, a silent socket
//   (45 s) is dropped and opened again;
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
//   welcome  {seq, storyboard, you, editors, resumed}
//   edited   {seq, author, by, edit}        every durable edit, in seq order (our own included)
//   ack      {id, seq}
//   rejected {id, code, message, kind}      an edit, undo or redo the server refused
//   editors  {editors}
//   drawing  {editor, shot, layer, stroke}
//   cursor   {editor, shot, x, y}
//   status   {state}                        connecting | live | offline | failed
//   save     {state, pending}               saving | saved | offline | failed
//   fatal    {code, message}
import { t } from '../i18n.js';

const MIN_DELAY = 500;
const MAX_DELAY = 4000; // an editor with unsaved work comes back quickly
const PING_EVERY = 20000;
const SILENCE_LIMIT = 45000;
const EPHEMERAL_MS = 33; // ~30 per second
const FATAL = new Set(['unauthorized', 'forbidden', 'not_found', 'bad_message', 'hello_required', 'full']);
/** Refusals of a command that say "not now": it is kept and sent again a little later. */
const RETRY = new Set(['unavailable', 'rate_limited']);
const RETRY_MS = 700;

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
   * @param {{token?: string, url?: string}} [options]
   */
  constructor(storyboardId, options = {}) {
    super();
    this.storyboardId = storyboardId;
    this.token = options.token || null;
    this.url = options.url || storyboardSocketURL(storyboardId);
    /** id -> {message, kind}, in the order sent: what the server has not acknowledged yet. */
    this.unacked = new Map();
    this.seq = null;
    this.you = null;
    this.editors = [];
    this.ws = null;
    this.welcomed = false;
    this.stopped = false;
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.state = 'idle';
    this.saveState = 'saved';
    this.ephemeral = new Map(); // type -> latest frame waiting for its slot
    this.ephemeralLast = new Map(); // type -> time the last one left
    this.ephemeralTimers = new Map();
    this.onOnline = () => { if (this.state === 'offline') this.reconnectNow(); };
    this.onVisible = () => {
      if (document.visibilityState !== 'visible' || this.stopped) return;
      if (this.state === 'offline') this.reconnectNow();
      else if (this.ws && Date.now() - this.lastHeard > PING_EVERY + 5000) this.reconnectNow();
    };
    // A page put in the back/forward cache must not keep its socket (the person would still show
    // as editing and hold an editor's place): close on pagehide, open again on pageshow.
    this.onPageHide = () => this.suspend();
    this.onPageShow = (event) => {
      if (event.persisted || this.suspended) this.resume();
    };
  }

  connect() {
    this.stopped = false;
    this.suspended = false;
    window.addEventListener('online', this.onOnline);
    document.addEventListener('visibilitychange', this.onVisible);
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    this.open();
  }

  /** The page is being left (maybe into the back/forward cache): the socket closes, what is unacknowledged is kept. */
  suspend() {
    if (this.stopped || this.suspended) return;
    this.suspended = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    for (const t of this.ephemeralTimers.values()) clearTimeout(t);
    this.ephemeralTimers.clear();
    this.ephemeral.clear();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close();
    }
    this.welcomed = false;
    this.setState('offline');
  }

  /** The page is shown again (back from the cache): reconnect at once, resuming from the last seq. */
  resume() {
    if (this.stopped || !this.suspended) return;
    this.suspended = false;
    this.reconnectNow();
  }

  close() {
    this.stopped = true;
    window.removeEventListener('online', this.onOnline);
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    for (const t of this.ephemeralTimers.values()) clearTimeout(t);
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }

  get isOpen() {
    return this.welcomed && this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  get pendingCount() {
    return this.unacked.size;
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

  queue(id, message, kind) {
    this.unacked.set(id, { message, kind });
    if (this.isOpen) this.raw(message);
    this.updateSave();
  }

  sendEphemeral(frame) {
    if (!this.isOpen) return;
    const type = frame.type;
    this.ephemeral.set(type, frame);
    if (this.ephemeralTimers.has(type)) return;
    const wait = EPHEMERAL_MS - (performance.now() - (this.ephemeralLast.get(type) || 0));
    const flush = () => {
      this.ephemeralTimers.delete(type);
      const latest = this.ephemeral.get(type);
      this.ephemeral.delete(type);
      if (!latest || !this.isOpen) return;
      this.ephemeralLast.set(type, performance.now());
      this.raw(latest);
    };
    if (wait <= 0) flush();
    else this.ephemeralTimers.set(type, setTimeout(flush, wait));
  }

  raw(message) {
    try {
      this.ws.send(JSON.stringify(message));
    } catch (_) {
      // Closing: the close handler reconnects.
    }
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emit('status', { state });
    this.updateSave();
  }

  updateSave() {
    let state;
    if (this.state === 'failed') state = 'failed';
    else if (this.state === 'connecting' || this.state === 'idle') state = 'connecting';
    else if (this.state !== 'live') state = 'offline';
    else state = this.unacked.size ? 'saving' : 'saved';
    const changed = state !== this.saveState || this.lastPending !== this.unacked.size;
    this.saveState = state;
    this.lastPending = this.unacked.size;
    if (changed) this.emit('save', { state, pending: this.unacked.size });
  }

  open() {
    clearTimeout(this.timer);
    if (this.stopped || this.suspended) return;
    this.setState(this.seq === null && this.attempt === 0 ? 'connecting' : 'offline');
    this.welcomed = false;
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (_) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      const hello = { type: 'hello' };
      if (this.token) hello.token = this.token;
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
      this.welcomed = false;
      clearInterval(this.pingTimer);
      if (this.stopped) return;
      this.scheduleReconnect();
    };
    ws.onerror = () => {};
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const base = Math.min(MAX_DELAY, MIN_DELAY * 2 ** this.attempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    this.setState('offline');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }

  reconnectNow() {
    if (this.stopped || this.suspended) return;
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
      return;
    }
    switch (message.type) {
      case 'edited':
        if (typeof message.seq === 'number') {
          if (this.seq !== null && message.seq <= this.seq) return; // seen already
          this.seq = message.seq;
        }
        this.emit('edited', message);
        break;
      case 'ack': {
        const entry = this.unacked.get(message.id);
        this.unacked.delete(message.id);
        this.emit('ack', { id: message.id, seq: message.seq, kind: entry ? entry.kind : null });
        this.updateSave();
        break;
      }
      case 'error': {
        const entry = message.id ? this.unacked.get(message.id) : null;
        if (entry && RETRY.has(message.code)) {
          // The server could not take it just now (busy, or catching up): the same id again soon.
          setTimeout(() => {
            if (this.unacked.get(message.id) === entry && this.isOpen) this.raw(entry.message);
          }, RETRY_MS + Math.random() * RETRY_MS);
          break;
        }
        if (message.id) this.unacked.delete(message.id);
        this.emit('rejected', { id: message.id || null, code: message.code, message: message.message, kind: entry ? entry.kind : null });
        this.updateSave();
        break;
      }
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

  onWelcome(welcome) {
    const resumed = this.seq !== null;
    this.welcomed = true;
    this.attempt = 0;
    this.seq = typeof welcome.seq === 'number' ? welcome.seq : 0;
    this.you = welcome.you || null;
    this.editors = welcome.editors || [];
    // The page rebuilds its view from the snapshot and what is still unacknowledged (see
    // StoryDoc), before those are sent again.
    this.emit('welcome', { seq: this.seq, storyboard: welcome.storyboard, you: this.you, editors: this.editors, resumed });
    this.emit('editors', { editors: this.editors });
    this.setState('live');
    this.startPing();
    for (const { message } of this.unacked.values()) this.raw(message);
    this.updateSave();
  }

  onHelloError(error) {
    if (FATAL.has(error.code)) {
      this.stopped = true;
      clearTimeout(this.timer);
      if (this.ws) {
        this.ws.onclose = null;
        this.ws.close();
        this.ws = null;
      }
      this.setState('failed');
      this.emit('fatal', { code: error.code, message: error.message });
    }
    // Anything else: the close follows and we try again.
  }

  /** The unacknowledged edits, oldest first: [{id, edit}] (undo and redo are not edits). */
  pendingEdits() {
    const out = [];
    for (const [id, { message, kind }] of this.unacked) if (kind === 'edit') out.push({ id, edit: message.edit });
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
