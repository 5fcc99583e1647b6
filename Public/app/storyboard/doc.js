// A storyboard being edited live: the socket (connection.js) feeding the model's Reconciler
// (model.js): our own edits applied at once and sent; every edit from the server (ours included,
// in the server's order) rebuilds the view as the confirmed state plus what is still pending; a
// pending edit that no longer applies is dropped, and the page is told.
//
// Events (CustomEvent, detail):
//   ready    {view, you, editors}             the first welcome
//   change   {view, source, edit, frame}      source: 'local' | 'server' | 'welcome'
//   dropped  {id, code, message}              one of our edits the server (or the model) refused
//   refused  {kind, code, message}            an undo or redo that had nothing to do
// and, passed on from the connection: save, status, editors, drawing, cursor, fatal.

import { Reconciler } from './model.js';
import { StoryboardConnection, newId } from './connection.js';

/** The ids of a Reconciler's pending edits, whatever shape it keeps them in. */
function pendingIds(reconciler) {
  const pending = reconciler.pending;
  if (!pending) return [];
  if (pending instanceof Map) return [...pending.keys()];
  if (Array.isArray(pending)) return pending.map((p) => (typeof p === 'string' ? p : p.id));
  return Object.keys(pending);
}

/** A Reconciler over a confirmed storyboard at `seq`, applying as `author`. */
function makeReconciler(storyboard, seq, author) {
  return new Reconciler(storyboard, seq, { author });
}

export class StoryDoc extends EventTarget {
  /**
   * @param {string} storyboardId
   * @param {{author: string, token?: string}} options  author: the signed-in user's id; a test
   *   may add the socket's WebSocket, timers and clock (connection.js, ../live/socket.js)
   */
  constructor(storyboardId, { author, token, ...env } = {}) {
    super();
    this.id = storyboardId;
    this.author = author;
    this.reconciler = null;
    this.you = null;
    this.editors = [];
    this.conn = new StoryboardConnection(storyboardId, { ...env, token });
    const pass = (type) => this.conn.addEventListener(type, (event) => this.emit(type, event.detail));
    for (const type of ['save', 'status', 'editors', 'drawing', 'cursor', 'fatal']) pass(type);
    this.conn.addEventListener('editors', (event) => { this.editors = event.detail.editors; });
    this.conn.addEventListener('welcome', (event) => this.onWelcome(event.detail));
    this.conn.addEventListener('edited', (event) => this.onEdited(event.detail));
    this.conn.addEventListener('ack', (event) => this.onAck(event.detail));
    this.conn.addEventListener('rejected', (event) => this.onRejected(event.detail));
  }

  connect() {
    this.conn.connect();
  }

  close() {
    this.conn.close();
  }

  get view() {
    return this.reconciler ? this.reconciler.view : null;
  }

  get seq() {
    return this.conn.seq;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * Applies an edit at once and sends it. Returns its id, or null when the model refused it here
   * (then nothing is sent; `dropped` says why).
   */
  edit(edit) {
    if (!this.reconciler) return null;
    const id = newId('e');
    try {
      this.reconciler.local(id, edit);
    } catch (error) {
      this.emit('dropped', { id, code: error.code || 'invalid_edit', message: error.message || String(error), local: true });
      return null;
    }
    this.conn.sendEdit(id, edit);
    this.emit('change', { view: this.view, source: 'local', edit });
    return id;
  }

  undo() {
    this.conn.sendUndo(false);
  }

  redo() {
    this.conn.sendUndo(true);
  }

  onWelcome({ storyboard, seq, you, editors, resumed, missed }) {
    this.you = you;
    this.editors = editors || [];
    if (missed && this.reconciler) {
      // Resumed: the edits we missed came as `edited` frames just before this (the connection
      // passed them on), on top of the content we hold; our pending edits are still on top.
      this.emit('change', { view: this.view, source: 'welcome', edit: null });
      return;
    }
    this.reconciler = makeReconciler(storyboard, seq, this.author);
    // What the server has not acknowledged yet goes on top of its snapshot again (an edit it took
    // already, whose answer we missed, no longer applies here: the server acknowledges it again).
    for (const { id, edit } of this.conn.pendingEdits()) {
      try {
        this.reconciler.local(id, edit);
      } catch (_) {
        // Kept in the connection: the server says whether it took it.
      }
    }
    if (!resumed) this.emit('ready', { view: this.view, you, editors: this.editors });
    this.emit('change', { view: this.view, source: 'welcome', edit: null });
  }

  onEdited(frame) {
    if (!this.reconciler) return;
    const before = new Set(pendingIds(this.reconciler));
    this.reconciler.server(frame);
    const after = new Set(pendingIds(this.reconciler));
    for (const id of before) {
      if (id !== frame.by && !after.has(id)) {
        this.emit('dropped', { id, code: 'conflict', message: 'A change of yours no longer applied after someone else’s and was dropped.' });
      }
    }
    this.emit('change', { view: this.view, source: 'server', edit: frame.edit, frame });
  }

  onAck({ id, seq }) {
    if (!this.reconciler) return;
    // A repeat the server had taken before (its edit came with the snapshot): nothing pending.
    if (pendingIds(this.reconciler).includes(id) && typeof seq === 'number' && seq <= this.conn.seq) {
      this.reconciler.rejected(id);
      this.emit('change', { view: this.view, source: 'server', edit: null });
    }
  }

  onRejected({ id, code, message, kind }) {
    if (!id) {
      // About the socket, not an edit (a stroke in progress or a cursor it would not pass on).
      console.warn('storyboard socket:', code, message);
      return;
    }
    if (kind === 'undo' || kind === 'redo') {
      this.emit('refused', { kind, code, message });
      return;
    }
    if (this.reconciler && id && pendingIds(this.reconciler).includes(id)) {
      this.reconciler.rejected(id);
      this.emit('change', { view: this.view, source: 'server', edit: null });
    }
    this.emit('dropped', { id, code, message });
  }
}

/** The signed-in user's id for stroke authors (from /api/v1/me). */
export function userId(user) {
  return String(user && (user.id ?? user.userId ?? user.email) || 'me');
}
