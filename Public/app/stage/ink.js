// Ink on slides (docs/protocol.md, "Ink on slides"): which strokes a stage shows, and the
// presenter's drawing tools (draw mode, pens, highlighter, eraser, undo, clear page).
//
// The stage draws what it is given (stage.setInk); the strokes of the page on display are picked
// here, in strokesFor, by every page that shows ink (presenter console, viewer, room pages).
// In a room a stroke carries the deck it was drawn on (the deck on the stage, stamped by the
// server): page 2 of one deck is not page 2 of another.

import { t, errorText } from '../core/i18n.js';
import { el, isTyping, dialogOpen, confirmDialog, icon } from '../core/ui.js';
import { throttle } from './deck-console.js';
import { newId } from '../live/live.js';

/**
 * The committed strokes of one page, oldest first. `deck`: in a room, the deck on the stage
 * (null while idle), and only that deck's strokes count; undefined outside rooms.
 */
export function strokesFor(strokes, page, deck = undefined) {
  return (Array.isArray(strokes) ? strokes : []).filter((stroke) => stroke.page === page
    && (deck === undefined || (stroke.deck || null) === deck));
}

/** The deck whose ink a state's stage shows: in a room the deck on the stage (or null), else undefined. */
export function inkDeck(state) {
  return state && state.room ? state.room.deck || null : undefined;
}

/** Whether a stroke (committed, or being drawn) belongs on this page of this deck (see strokesFor). */
export function onPage(stroke, page, deck = undefined) {
  return Boolean(stroke) && stroke.page === page && (deck === undefined || (stroke.deck || null) === deck);
}

export const INK_COLORS = [
  { color: '#e53935', name: 'ink.red' },
  { color: '#1e88e5', name: 'ink.blue' },
  { color: '#43a047', name: 'ink.green' },
  { color: '#fdd835', name: 'ink.yellow' },
  { color: '#111111', name: 'ink.black' },
  { color: '#ffffff', name: 'ink.white' },
];
/** Line widths, as fractions of the page width (the protocol allows 0.0005 to 0.05). */
export const INK_WIDTHS = [
  { width: 0.002, name: 'ink.fine' },
  { width: 0.004, name: 'ink.medium' },
  { width: 0.008, name: 'ink.bold' },
];
const MAX_POINTS = 2000;
const INKING_MS = 33; // ~30 per second
const MIN_STEP_PX = 1.5; // a new point once the pen moved this far
const ERASE_SLOP_PX = 10;
const UNDO_KEEP = 200;

function round(n, digits) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function clamp01(n) {
  return Math.min(1, Math.max(0, n));
}

/** Distance from p to the segment a–b, in pixels (ppu: pixels per page unit, x and y). */
function segmentDistance(p, a, b, ppu) {
  const ax = a[0] * ppu.x;
  const ay = a[1] * ppu.y;
  const dx = b[0] * ppu.x - ax;
  const dy = b[1] * ppu.y - ay;
  const px = p.x * ppu.x;
  const py = p.y * ppu.y;
  const length = dx * dx + dy * dy;
  const t = length > 0 ? clamp01(((px - ax) * dx + (py - ay) * dy) / length) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Ramer–Douglas–Peucker on page points, keeping pressure; tolerance in page units. */
function simplifyRDP(points, tolerance) {
  if (points.length < 3) return points.slice();
  const keep = new Uint8Array(points.length);
  keep[0] = 1;
  keep[points.length - 1] = 1;
  const stack = [[0, points.length - 1]];
  const unit = { x: 1, y: 1 };
  while (stack.length) {
    const [first, last] = stack.pop();
    let worst = -1;
    let index = -1;
    const p0 = points[first];
    const p1 = points[last];
    for (let i = first + 1; i < last; i += 1) {
      const d = segmentDistance({ x: points[i][0], y: points[i][1] }, p0, p1, unit);
      if (d > worst) {
        worst = d;
        index = i;
      }
    }
    if (worst > tolerance && index > 0) {
      keep[index] = 1;
      stack.push([first, index], [index, last]);
    }
  }
  return points.filter((_, i) => keep[i]);
}

/** At most `limit` points: simplified first, then evenly thinned if still too many. */
export function limitPoints(points, limit = MAX_POINTS) {
  let out = points;
  let tolerance = 0.0002;
  while (out.length > limit && tolerance < 0.05) {
    out = simplifyRDP(points, tolerance);
    tolerance *= 2;
  }
  if (out.length > limit) {
    const step = (out.length - 1) / (limit - 1);
    out = Array.from({ length: limit }, (_, i) => out[Math.round(i * step)]);
  }
  return out;
}

/**
 * The presenter's ink tools over a DeckConsole: a "Draw" toggle beside the laser pointer, and, in
 * draw mode, a tool bar (pen, highlighter, eraser, colours, widths, undo, clear page). Strokes
 * are sent while drawn (`inking`, ~30/s) and committed on pen up (`stroke`).
 */
export class InkTools {
  /**
   * @param {object} o
   * @param {import('./deck-console.js').DeckConsole} o.deckConsole
   * @param {HTMLElement} o.stage         the <podium-stage>
   * @param {HTMLElement} o.stageWrap
   * @param {HTMLElement} o.bar           where the tool bar goes (shown in draw mode)
   * @param {() => object|null} o.state   the live state ({strokes}, and in a room {room: {deck}}), or null
   *                                      before the welcome; in a room only the ink of the deck on the
   *                                      stage is shown, erased, undone and cleared
   * @param {(command) => Promise} o.send sends a durable command; resolves with the ack, rejects with {code, message}
   * @param {(message) => void} o.sendEphemeral
   * @param {(text: string) => void} o.error
   * @param {string} o.code               the join code (undo history is kept per session and tab)
   *
   * Draw mode needs the DeckConsole enabled: when it is disabled (a room's control moved away,
   * the session ended) the next render leaves draw mode and hides the tool bar.
   */
  constructor(o) {
    this.o = o;
    this.console = o.deckConsole;
    this.stage = o.stage;
    this.drawMode = false;
    this.tool = 'pen';
    this.color = INK_COLORS[0].color;
    this.width = INK_WIDTHS[1].width;
    this.stroke = null; // the stroke being drawn
    this.erasing = null; // the eraser gesture
    this.pending = new Map(); // id -> stroke sent, not yet in the state
    this.hidden = new Set(); // ids erased (or cleared) here, not yet confirmed
    this.mine = this.loadMine();
    this.sendInking = throttle((stroke) => this.o.sendEphemeral({ type: 'inking', ...stroke }), INKING_MS);
    this.buildToggle();
    this.buildBar(o.bar);
    this.bindKeys();
    this.console.onPointerModeChange = (on) => {
      if (on && this.drawMode) this.setDrawMode(false);
    };
    this.console.onPageChange = () => this.abortStroke();
  }

  // ---- what the stage shows ----

  /** In a room, the deck on the stage (null while idle); undefined in a session. */
  deck() {
    return inkDeck(this.o.state());
  }

  /** The strokes of the page (and, in a room, the deck) on the console's stage, as the presenter should see them now. */
  visibleStrokes() {
    const state = this.o.state();
    const page = this.console.page;
    const deck = inkDeck(state);
    const committed = state ? state.strokes || [] : [];
    const ids = new Set(committed.map((s) => s.id));
    for (const id of this.pending.keys()) if (ids.has(id)) this.pending.delete(id);
    const list = strokesFor(committed, page, deck).filter((s) => !this.hidden.has(s.id));
    for (const stroke of this.pending.values()) if (onPage(stroke, page, deck) && !this.hidden.has(stroke.id)) list.push(stroke);
    return list;
  }

  /** The stroke in progress, when it is on the page (and deck) shown. */
  liveStroke() {
    return onPage(this.stroke, this.console.page, this.deck()) ? this.stroke : null;
  }

  render() {
    // Control moved away (a room), or the session ended: no drawing any more.
    if (this.drawMode && !this.console.enabled) this.setDrawMode(false);
    // The deck on the stage changed under the pen (a room): that stroke is dropped.
    if (this.stroke && !this.liveStroke()) this.abortStroke();
    this.shown = this.visibleStrokes();
    this.stage.setInk(this.shown, this.liveStroke());
    this.renderBar();
  }

  /** Only the stroke in progress changed. */
  renderLive() {
    if (!this.shown) this.shown = this.visibleStrokes();
    this.stage.setInk(this.shown, this.liveStroke());
  }

  // ---- modes ----

  setDrawMode(on = !this.drawMode) {
    if (on && !this.console.enabled) on = false;
    if (!on) this.abortStroke();
    this.drawMode = on;
    if (on && this.console.pointerMode) this.console.togglePointerMode(false);
    if (on) this.console.hidePointer();
    this.console.setInputHandler(on ? this : null);
    this.toggle.setAttribute('aria-pressed', String(on));
    this.stage.classList.toggle('is-draw-mode', on);
    this.o.stageWrap.classList.toggle('is-drawing', on);
    this.bar.hidden = !on;
    document.body.dataset.drawMode = String(on);
    this.renderBar();
  }

  setTool(tool) {
    this.tool = tool;
    if (!this.drawMode) this.setDrawMode(true);
    this.renderBar();
  }

  // ---- UI ----

  buildToggle() {
    this.toggle = el('button', {
      class: 'btn', attrs: {
        type: 'button', 'aria-pressed': 'false', 'data-action': 'draw', 'aria-label': t('ink.draw'),
        title: t('ink.draw-title'), 'aria-keyshortcuts': 'D',
      },
      on: { click: () => this.setDrawMode() },
    }, [icon('pen', 20), el('span', { class: 'btn-label', text: t('ink.draw') })]);
    const group = this.console.pointerToggle.parentElement;
    group.insertBefore(this.toggle, this.console.pointerToggle.nextSibling);
  }

  buildBar(bar) {
    this.bar = bar;
    bar.hidden = true;
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', t('ink.ink'));
    const toolButton = (tool, label, iconName, key) => el('button', {
      class: 'ink-btn', attrs: { type: 'button', 'data-tool': tool, 'aria-pressed': 'false', 'aria-label': label, title: key ? t('ink.with-key', { label, key }) : label },
      on: { click: () => this.setTool(tool) },
    }, [icon(iconName, 20)]);
    this.toolButtons = [
      toolButton('pen', t('ink.pen'), 'pen'),
      toolButton('highlighter', t('ink.highlighter'), 'highlighter'),
      toolButton('eraser', t('ink.eraser'), 'eraser'),
    ];
    this.swatches = INK_COLORS.map(({ color, name }) => {
      const dot = el('span', { class: 'ink-swatch-dot' });
      dot.style.background = color;
      return el('button', {
        class: 'ink-btn ink-swatch', attrs: { type: 'button', 'data-color': color, 'aria-pressed': 'false', 'aria-label': t(name), title: t(name) },
        on: { click: () => this.pickColor(color) },
      }, [dot]);
    });
    this.widthButtons = INK_WIDTHS.map(({ width, name }, index) => {
      const dot = el('span', { class: 'ink-width-dot ink-width-' + (index + 1) });
      return el('button', {
        class: 'ink-btn ink-width', attrs: { type: 'button', 'data-width': width, 'aria-pressed': 'false', 'aria-label': t(name), title: t(name) },
        on: { click: () => this.pickWidth(width) },
      }, [dot]);
    });
    this.undoButton = el('button', {
      class: 'ink-btn', attrs: { type: 'button', 'data-action': 'ink-undo', 'aria-label': t('ink.undo'), title: t('ink.undo-title'), 'aria-keyshortcuts': 'Control+Z Meta+Z' },
      on: { click: () => this.undo() },
    }, [icon('undo', 20), el('span', { class: 'ink-label', text: t('ink.undo') })]);
    this.clearButton = el('button', {
      class: 'ink-btn', attrs: { type: 'button', 'data-action': 'ink-clear', 'aria-label': t('ink.clear-slide-label'), title: t('ink.clear-title') },
      on: { click: () => this.clearPage() },
    }, [icon('clear', 20), el('span', { class: 'ink-label', text: t('ink.clear') })]);
    const done = el('button', {
      class: 'ink-btn ink-done', attrs: { type: 'button', 'data-action': 'ink-done', 'aria-label': t('ink.stop'), title: t('ink.stop-title') },
      on: { click: () => this.setDrawMode(false) },
    }, [icon('x', 20)]);
    const sep = () => el('span', { class: 'ink-sep', attrs: { 'aria-hidden': 'true' } });
    const group = (label, children) => el('div', { class: 'ink-group', attrs: { role: 'group', 'aria-label': label } }, children);
    bar.replaceChildren(
      group(t('ink.tool'), this.toolButtons), sep(),
      group(t('ink.colour'), this.swatches), sep(),
      group(t('ink.line-width'), this.widthButtons), sep(),
      group(t('ink.edit'), [this.undoButton, this.clearButton]), sep(),
      done,
    );
    this.renderBar();
  }

  pickColor(color) {
    this.color = color;
    if (this.tool === 'eraser') this.tool = 'pen';
    this.renderBar();
  }

  pickWidth(width) {
    this.width = width;
    if (this.tool === 'eraser') this.tool = 'pen';
    this.renderBar();
  }

  renderBar() {
    if (!this.bar) return;
    this.bar.dataset.tool = this.tool;
    for (const button of this.toolButtons) button.setAttribute('aria-pressed', String(button.dataset.tool === this.tool));
    const inking = this.tool !== 'eraser';
    for (const button of this.swatches) {
      button.setAttribute('aria-pressed', String(inking && button.dataset.color === this.color));
    }
    for (const button of this.widthButtons) {
      button.setAttribute('aria-pressed', String(inking && Number(button.dataset.width) === this.width));
      button.style.setProperty('--ink-color', this.color);
    }
    this.stage.classList.toggle('is-erasing', this.tool === 'eraser');
    const enabled = this.console.enabled;
    this.undoButton.disabled = !enabled || !this.lastUndoable();
    this.clearButton.disabled = !enabled || !this.visibleStrokes().length;
  }

  bindKeys() {
    document.addEventListener('keydown', (event) => {
      if (!this.console.enabled || isTyping(event) || dialogOpen() || event.altKey) return;
      const key = event.key;
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && (key === 'z' || key === 'Z')) {
        event.preventDefault();
        this.undo();
        return;
      }
      if (event.ctrlKey || event.metaKey) return;
      if (key === 'd' || key === 'D') {
        event.preventDefault();
        this.setDrawMode();
      } else if (key === 'Escape' && this.drawMode && !event.defaultPrevented) {
        event.preventDefault();
        this.setDrawMode(false);
      }
    });
  }

  // ---- drawing (the DeckConsole hands the stage's pointer events over in draw mode) ----

  pagePoint(event) {
    const p = this.stage.clientToPage(event.clientX, event.clientY);
    const pressure = event.pointerType === 'pen' ? clamp01(event.pressure || 0.5) : 0.5;
    return { x: clamp01(p.x), y: clamp01(p.y), inside: p.inside, pressure };
  }

  pointerdown(event) {
    if (!this.console.enabled) return;
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    if (this.stroke || this.erasing) {
      // A palm on the screen while a pen draws: ignored. Anything else: a second finger ends it.
      const active = this.stroke || this.erasing;
      if (active.pointerType === 'pen' && event.pointerType === 'touch') return;
      if (active.pointerId !== event.pointerId) this.abortStroke();
      return;
    }
    const p = this.pagePoint(event);
    if (!p.inside) return;
    try {
      this.stage.setPointerCapture(event.pointerId);
    } catch (_) {
      // the pointer may be gone already
    }
    event.preventDefault();
    if (this.tool === 'eraser') {
      this.erasing = { pointerId: event.pointerId, pointerType: event.pointerType, last: p };
      this.eraseAt(p);
      return;
    }
    this.stroke = {
      pointerId: event.pointerId, pointerType: event.pointerType,
      page: this.console.page, deck: this.deck(), tool: this.tool, color: this.color, width: this.width,
      points: [[round(p.x, 4), round(p.y, 4), round(p.pressure, 2)]],
    };
    this.sendInking(this.wire(this.stroke));
    this.renderLive();
  }

  pointermove(event) {
    if (this.erasing && event.pointerId === this.erasing.pointerId) {
      this.eraseAt(this.pagePoint(event));
      return;
    }
    const stroke = this.stroke;
    if (!stroke || event.pointerId !== stroke.pointerId) return;
    const ppu = this.stage.pixelsPerUnit();
    const events = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
    let added = false;
    for (const e of events.length ? events : [event]) {
      const p = this.pagePoint(e);
      const last = stroke.points[stroke.points.length - 1];
      if (Math.hypot((p.x - last[0]) * ppu.x, (p.y - last[1]) * ppu.y) < MIN_STEP_PX) continue;
      stroke.points.push([round(p.x, 4), round(p.y, 4), round(p.pressure, 2)]);
      added = true;
    }
    if (!added) return;
    if (stroke.points.length >= MAX_POINTS) stroke.points = limitPoints(stroke.points, Math.floor(MAX_POINTS * 0.75));
    this.sendInking(this.wire(stroke));
    this.renderLive();
  }

  pointerup(event, cancelled = false) {
    if (this.erasing && event.pointerId === this.erasing.pointerId) {
      this.erasing = null;
      return;
    }
    const stroke = this.stroke;
    if (!stroke || event.pointerId !== stroke.pointerId) return;
    if (cancelled) {
      this.abortStroke();
      return;
    }
    const p = this.pagePoint(event);
    const last = stroke.points[stroke.points.length - 1];
    if (p.x !== last[0] || p.y !== last[1]) stroke.points.push([round(p.x, 4), round(p.y, 4), last[2]]);
    this.stroke = null;
    this.sendInking.cancel();
    this.commit({ ...this.wire(stroke), points: limitPoints(stroke.points) }, stroke.deck);
    this.o.sendEphemeral({ type: 'inking', done: true });
    this.render();
  }

  pointercancel(event) {
    this.pointerup(event, true);
  }

  /** The stroke as sent: {page, tool, color, width, points} (in a room the server adds the deck). */
  wire(stroke) {
    return { page: stroke.page, tool: stroke.tool, color: stroke.color, width: stroke.width, points: stroke.points };
  }

  /** Drops the stroke in progress (page changed, second finger, draw mode off). */
  abortStroke() {
    this.erasing = null;
    if (!this.stroke) return;
    this.stroke = null;
    this.sendInking.cancel();
    // Without control (a room) the server refuses ink: the others drop the stroke by themselves.
    if (this.console.enabled) this.o.sendEphemeral({ type: 'inking', done: true });
    this.renderLive();
  }

  /** Sends a stroke; `deck` (in a room) keeps it on its deck until the server's copy arrives. */
  commit(stroke, deck = undefined) {
    const id = newId();
    this.pending.set(id, deck === undefined ? { ...stroke, id } : { ...stroke, deck, id });
    this.remember(id);
    this.o.send({ type: 'stroke', id, stroke }).then(
      () => this.render(),
      (error) => {
        this.pending.delete(id);
        this.forget(id);
        this.render();
        if (error && error.message) this.o.error(errorText(error));
      },
    );
  }

  // ---- erasing, undo, clear ----

  /** The stroke of the page (and deck) shown nearest to a point, within reach of a finger. */
  hitTest(p) {
    const ppu = this.stage.pixelsPerUnit();
    let best = null;
    let bestDistance = Infinity;
    for (const stroke of this.visibleStrokes()) {
      const points = stroke.points || [];
      const reach = (stroke.width * (stroke.tool === 'highlighter' ? 3 : 1) * ppu.x) / 2 + ERASE_SLOP_PX;
      for (let i = 0; i < points.length; i += 1) {
        const d = segmentDistance(p, points[i], points[Math.min(i + 1, points.length - 1)], ppu);
        if (d <= reach && d <= bestDistance) { // "<=": the newest of overlapping strokes wins
          best = stroke;
          bestDistance = d;
        }
      }
    }
    return best;
  }

  eraseAt(p) {
    const stroke = this.hitTest(p);
    if (stroke) this.erase(stroke.id);
  }

  erase(id) {
    if (this.hidden.has(id)) return;
    this.hidden.add(id);
    this.render();
    // A stroke not yet acknowledged is fine: the erase follows it on the same socket, in order.
    this.o.send({ type: 'erase', strokeId: id }).then(
      () => {
        this.hidden.delete(id);
        this.render();
      },
      (error) => {
        this.hidden.delete(id);
        this.render();
        if (error && error.code !== 'stroke_not_found' && error.message) this.o.error(errorText(error));
      },
    );
  }

  /**
   * The newest of my strokes on the page (and deck) shown that still exists (committed or on its
   * way). Undo never reaches a stroke nobody sees right now.
   */
  lastUndoable() {
    const here = new Set(this.visibleStrokes().map((s) => s.id));
    for (let i = this.mine.length - 1; i >= 0; i -= 1) {
      const id = this.mine[i];
      if (here.has(id)) return id;
    }
    return null;
  }

  undo() {
    const id = this.lastUndoable();
    if (!id) return;
    this.forget(id);
    this.erase(id);
  }

  async clearPage() {
    const page = this.console.page;
    const strokes = this.visibleStrokes();
    if (!strokes.length) return;
    const ok = await confirmDialog({
      title: t('ink.clear-confirm-title'), message: t('ink.clear-confirm-message', { count: strokes.length, page }),
      confirmLabel: t('ink.clear-slide'), danger: true,
    });
    if (!ok) return;
    const ids = strokes.map((s) => s.id);
    for (const id of ids) this.hidden.add(id);
    this.render();
    const settle = () => {
      for (const id of ids) this.hidden.delete(id);
      this.render();
    };
    this.o.send({ type: 'clearPage', page }).then(settle, (error) => {
      settle();
      if (error && error.message) this.o.error(errorText(error));
    });
  }

  // ---- my strokes, for undo (kept per session in this tab, so a reload can still undo) ----

  storageKey() {
    return 'podium.ink.' + this.o.code;
  }

  loadMine() {
    try {
      const list = JSON.parse(sessionStorage.getItem(this.storageKey()) || '[]');
      return Array.isArray(list) ? list.filter((id) => typeof id === 'string') : [];
    } catch (_) {
      return [];
    }
  }

  saveMine() {
    try {
      sessionStorage.setItem(this.storageKey(), JSON.stringify(this.mine.slice(-UNDO_KEEP)));
    } catch (_) {
      // storage may be off
    }
  }

  remember(id) {
    this.mine.push(id);
    if (this.mine.length > UNDO_KEEP) this.mine = this.mine.slice(-UNDO_KEEP);
    this.saveMine();
  }

  forget(id) {
    this.mine = this.mine.filter((x) => x !== id);
    this.saveMine();
  }
}
