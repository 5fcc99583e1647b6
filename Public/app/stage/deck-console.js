// The presenter's controls over a <podium-stage>: pages, zoom and pan, laser pointer, blank
// screen, thumbnails, keyboard, mouse, touch. Shared by the live console and rehearsal; the
// live console passes hooks that send commands, rehearsal passes none.

import { t, formatNumber } from '../core/i18n.js';
import { el, icon, iconButton, isTyping, dialogOpen, toggleFullscreen } from '../core/ui.js';

const FULL = Object.freeze({ x: 0, y: 0, w: 1, h: 1 });
const MIN_SIDE = 0.05; // 20× zoom, the protocol's limit
const ZOOM_STEP = 1.5;
const HOLD_MS = 350;
const MOVE_SLOP = 8;
const SWIPE_MIN = 50;
const ZOOM_SEND_MS = 100; // ~10 per second while dragging
const POINTER_SEND_MS = 33; // ~30 per second

function round4(n) {
  return Math.round(n * 10000) / 10000;
}

function isFull(v) {
  return v.w >= 0.9999 && v.h >= 0.9999;
}

/** Keeps a viewport inside the page with sides of at least MIN_SIDE, rounded for the wire. */
export function clampViewport(v) {
  let w = Math.min(1, Math.max(MIN_SIDE, v.w));
  let h = Math.min(1, Math.max(MIN_SIDE, v.h));
  if (w >= 0.9999 && h >= 0.9999) return { ...FULL };
  w = round4(w);
  h = round4(h);
  const x = Math.min(1 - w, Math.max(0, round4(v.x)));
  const y = Math.min(1 - h, Math.max(0, round4(v.y)));
  return { x, y, w, h };
}

/**
 * Throttles calls to `fn` to one per `ms`, always delivering the latest arguments last.
 * flush() delivers a pending call at once.
 */
export function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  let pendingArgs = null;
  const run = () => {
    timer = null;
    last = Date.now();
    const args = pendingArgs;
    pendingArgs = null;
    fn(...args);
  };
  const call = (...args) => {
    pendingArgs = args;
    const wait = ms - (Date.now() - last);
    if (wait <= 0 && !timer) run();
    else if (!timer) timer = setTimeout(run, wait);
  };
  call.flush = () => {
    if (timer) {
      clearTimeout(timer);
      run();
    }
  };
  call.cancel = () => {
    clearTimeout(timer);
    timer = null;
    pendingArgs = null;
  };
  Object.defineProperty(call, 'pending', { get: () => timer !== null });
  return call;
}

export class DeckConsole {
  /**
   * @param {object} options
   * @param {HTMLElement} options.stage       the <podium-stage>
   * @param {HTMLElement} options.stageWrap   the stage's container (fullscreen target, click area)
   * @param {HTMLElement} options.controls    where the control bar goes
   * @param {HTMLElement} options.thumbs      where the thumbnail strip goes
   * @param {(page:number)=>void} [options.onGoto]
   * @param {(viewport:object)=>void} [options.onZoom]     throttled to ~10/s, the final one always
   * @param {(point:{x,y}|null)=>void} [options.onPointer] throttled to ~30/s; null = hidden
   * @param {(mode:string)=>void} [options.onBlank]
   * @param {()=>void} [options.onChange]   any local change (page, zoom, blank), for UI
   */
  constructor(options) {
    this.stage = options.stage;
    this.stageWrap = options.stageWrap;
    this.hooks = options;
    this.page = 1;
    this.viewport = { ...FULL };
    this.blank = 'none';
    this.pointerMode = false;
    this.laserKey = false; // "." held
    this.pointerShown = false;
    this.enabled = true;
    this.gesture = null;
    this.pointers = new Map();
    this.lastMouse = null; // last client position over the stage
    this.wheelTimer = null;
    this.inputHandler = null; // draw mode: the stage's pointer events go to it (ink.js)
    this.onPointerModeChange = null;
    this.onPageChange = null;
    this.sendZoom = throttle((v) => this.hooks.onZoom && this.hooks.onZoom(v), ZOOM_SEND_MS);
    this.sendPointer = throttle((p) => this.hooks.onPointer && this.hooks.onPointer(p), POINTER_SEND_MS);
    this.buildControls(options.controls);
    this.thumbsEl = options.thumbs;
    this.bindStage();
    this.bindKeys();
  }

  /**
   * Hands the stage's pointer events to `handler` ({pointerdown, pointermove, pointerup,
   * pointercancel}) instead of paging, panning and the laser; null gives them back.
   * The keyboard, the wheel and the buttons keep working.
   */
  setInputHandler(handler) {
    if (handler && this.gesture) {
      clearTimeout(this.gesture.holdTimer);
      if (this.gesture.kind === 'laser') this.hidePointer();
      this.gesture = null;
      this.pointers.clear();
      this.stage.classList.remove('is-panning');
    }
    this.inputHandler = handler || null;
  }

  /** The pages of the deck (from the welcome or the deck). */
  setPages(pages) {
    this.pages = pages;
    this.stage.pages = pages;
    this.buildThumbs();
    this.render();
  }

  get pageCount() {
    return (this.pages || []).length;
  }

  /** True while the presenter is in the middle of something the server has not seen yet. */
  get busy() {
    return Boolean(this.gesture) || this.sendZoom.pending || this.wheelTimer !== null;
  }

  /** Takes the server's state (when nothing local is in flight). */
  adopt(state) {
    if (!state) return;
    this.page = state.page;
    this.viewport = isFull(state.viewport) ? { ...FULL } : { ...state.viewport };
    this.blank = state.blank || 'none';
    this.render();
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    for (const button of this.controls.querySelectorAll('button')) button.disabled = !enabled;
    // The thumbnails say so with aria-disabled, not disabled: the strip scrolls, and its one Tab
    // stop stays for the keyboard to scroll it with (goto() does nothing while disabled).
    this.prevEdge.disabled = !enabled;
    this.nextEdge.disabled = !enabled;
    if (!enabled) this.hidePointer();
    this.render();
  }

  // ---- actions ----

  goto(page) {
    if (!this.enabled) return;
    const target = Math.min(this.pageCount, Math.max(1, page));
    if (!this.pageCount || target === this.page) return;
    this.sendZoom.cancel();
    if (this.onPageChange) this.onPageChange(target);
    this.page = target;
    this.viewport = { ...FULL };
    if (this.pointerShown) this.hidePointer();
    this.render();
    if (this.hooks.onGoto) this.hooks.onGoto(target);
  }

  next() {
    this.goto(this.page + 1);
  }

  prev() {
    this.goto(this.page - 1);
  }

  setViewport(viewport, { final = true } = {}) {
    if (!this.enabled) return;
    const next = clampViewport(viewport);
    const v = this.viewport;
    const changed = next.x !== v.x || next.y !== v.y || next.w !== v.w || next.h !== v.h;
    this.viewport = next;
    if (changed) {
      this.stage.setViewport(next);
      this.renderZoom();
      this.sendZoom(next);
    }
    if (final) this.sendZoom.flush();
  }

  /** Zooms by `factor` keeping the page point under `client` (or the centre) in place. */
  zoomBy(factor, client = null, options = {}) {
    const v = this.viewport;
    let w = Math.min(1, Math.max(MIN_SIDE, v.w / factor));
    let h = Math.min(1, Math.max(MIN_SIDE, v.h / factor));
    if (w === v.w && h === v.h) return;
    let fx = 0.5;
    let fy = 0.5;
    if (client) {
      const rect = this.stage.frameRect();
      fx = Math.min(1, Math.max(0, (client.x - rect.left) / rect.width));
      fy = Math.min(1, Math.max(0, (client.y - rect.top) / rect.height));
    }
    const ax = v.x + fx * v.w;
    const ay = v.y + fy * v.h;
    if (w >= 0.9999 && h >= 0.9999) {
      w = 1;
      h = 1;
    }
    this.setViewport({ x: ax - fx * w, y: ay - fy * h, w, h }, options);
  }

  resetZoom() {
    this.setViewport(FULL);
  }

  setBlank(mode) {
    if (!this.enabled) return;
    this.blank = mode;
    this.stage.setBlank(mode);
    this.renderBlank();
    if (this.hooks.onBlank) this.hooks.onBlank(mode);
  }

  toggleBlank(mode) {
    this.setBlank(this.blank === mode ? 'none' : mode);
  }

  togglePointerMode(on = !this.pointerMode) {
    this.pointerMode = on;
    this.pointerToggle.setAttribute('aria-pressed', String(on));
    this.stage.classList.toggle('is-pointer-mode', on);
    if (!on && !this.laserKey) this.hidePointer();
    if (this.onPointerModeChange) this.onPointerModeChange(on);
  }

  showPointerAt(clientX, clientY) {
    const p = this.stage.clientToPage(clientX, clientY);
    if (!p.inside) {
      this.hidePointer();
      return;
    }
    const point = { x: round4(Math.min(1, Math.max(0, p.x))), y: round4(Math.min(1, Math.max(0, p.y))) };
    this.pointerShown = true;
    this.stage.setPointer(point);
    this.sendPointer(point);
  }

  hidePointer() {
    if (!this.pointerShown) return;
    this.pointerShown = false;
    this.stage.setPointer(null);
    this.sendPointer.cancel();
    if (this.hooks.onPointer) this.hooks.onPointer(null);
  }

  fullscreen() {
    toggleFullscreen(this.stageWrap);
  }

  // ---- UI ----

  buildControls(container) {
    this.controls = container;
    const b = (iconName, label, handler, extra = {}) =>
      iconButton(iconName, label, { cls: 'btn ' + (extra.cls || ''), showLabel: extra.showLabel !== false, on: { click: handler }, attrs: extra.attrs || {} });
    this.prevButton = b('chevron-left', t('console.previous'), () => this.prev(), { cls: 'btn-nav', showLabel: false, attrs: { 'data-action': 'prev', 'aria-keyshortcuts': 'ArrowLeft' } });
    this.nextButton = b('chevron-right', t('console.next'), () => this.next(), { cls: 'btn-nav', showLabel: false, attrs: { 'data-action': 'next', 'aria-keyshortcuts': 'ArrowRight' } });
    this.pageIndicator = el('span', { class: 'page-indicator', attrs: { 'aria-live': 'polite', 'data-role': 'page-indicator' } });
    this.zoomOut = b('minus', t('console.zoom-out'), () => this.zoomBy(1 / ZOOM_STEP), { showLabel: false, attrs: { 'data-action': 'zoom-out', 'aria-keyshortcuts': '-' } });
    this.zoomIn = b('plus', t('console.zoom-in'), () => this.zoomBy(ZOOM_STEP), { showLabel: false, attrs: { 'data-action': 'zoom-in', 'aria-keyshortcuts': '+' } });
    this.zoomLevel = el('button', {
      class: 'btn btn-ghost zoom-level', text: '100%',
      attrs: { type: 'button', 'data-action': 'zoom-reset', title: t('console.reset-zoom-key'), 'aria-label': t('console.reset-zoom'), 'aria-keyshortcuts': '0' },
      on: { click: () => this.resetZoom() },
    });
    this.pointerToggle = b('laser', t('console.pointer'), () => this.togglePointerMode(), { attrs: { 'aria-pressed': 'false', 'data-action': 'pointer', title: t('console.pointer-title'), 'aria-keyshortcuts': 'L' } });
    this.blackButton = b('square', t('console.black'), () => this.toggleBlank('black'), { attrs: { 'aria-pressed': 'false', 'data-action': 'blank-black', title: t('console.black-title'), 'aria-keyshortcuts': 'B' } });
    this.whiteButton = b('sun', t('console.white'), () => this.toggleBlank('white'), { cls: 'hide-phone', attrs: { 'aria-pressed': 'false', 'data-action': 'blank-white', title: t('console.white-title'), 'aria-keyshortcuts': 'W' } });
    this.fullButton = b('fullscreen', t('common.full-screen'), () => this.fullscreen(), { cls: 'hide-phone', showLabel: false, attrs: { 'data-action': 'fullscreen', title: t('common.full-screen-key'), 'aria-keyshortcuts': 'F' } });
    container.replaceChildren(
      el('div', { class: 'control-group', attrs: { role: 'group', 'aria-label': t('console.pages') } }, [this.prevButton, this.pageIndicator, this.nextButton]),
      el('span', { class: 'control-sep', attrs: { 'aria-hidden': 'true' } }),
      el('div', { class: 'control-group', attrs: { role: 'group', 'aria-label': t('console.zoom') } }, [this.zoomOut, this.zoomLevel, this.zoomIn]),
      el('span', { class: 'control-sep', attrs: { 'aria-hidden': 'true' } }),
      el('div', { class: 'control-group', attrs: { role: 'group', 'aria-label': t('console.pointer-and-screen') } }, [this.pointerToggle, this.blackButton, this.whiteButton, this.fullButton]),
    );
    // Big, discreet previous/next targets on the stage edges.
    this.prevEdge = el('button', { class: 'edge-nav prev', attrs: { type: 'button', 'aria-label': t('console.previous-slide'), tabindex: '-1' }, on: { click: () => this.prev() } }, [icon('chevron-left', 28)]);
    this.nextEdge = el('button', { class: 'edge-nav next', attrs: { type: 'button', 'aria-label': t('console.next-slide'), tabindex: '-1' }, on: { click: () => this.next() } }, [icon('chevron-right', 28)]);
    this.stageWrap.append(this.prevEdge, this.nextEdge);
  }

  /**
   * The thumbnail strip: one Tab stop (a toolbar with a roving tabindex). The arrows, Home and
   * End move the focus along it without changing slide (driver.js leaves them to it);
   * Enter or Space goes to the focused slide.
   */
  buildThumbs() {
    const strip = this.thumbsEl;
    strip.setAttribute('aria-label', t('console.slides'));
    const list = el('div', {
      class: 'thumb-list',
      attrs: { role: 'toolbar', 'aria-orientation': 'horizontal', 'aria-label': t('console.slides'), 'data-role': 'thumb-list' },
      on: { keydown: (event) => this.onThumbKey(event) },
    });
    (this.pages || []).forEach((page, index) => {
      const number = index + 1;
      const img = el('img', { attrs: { src: page.thumbnailUrl || page.mediumUrl, alt: '', loading: 'lazy', decoding: 'async', draggable: 'false' } });
      const button = el('button', {
        class: 'thumb', attrs: { type: 'button', 'aria-label': t('notes.go-to', { page: number }), 'data-page': number, tabindex: '-1' },
        on: { click: () => this.goto(number), focus: () => this.rove(button) },
      }, [img, el('span', { text: formatNumber(number) })]);
      list.append(button);
    });
    strip.replaceChildren(list);
  }

  /** The strip's one Tab stop moves to `thumb`. */
  rove(thumb) {
    for (const other of this.thumbsEl.querySelectorAll('.thumb')) other.tabIndex = other === thumb ? 0 : -1;
  }

  /** Arrows, Home and End inside the strip move the focus along it, not the slide. */
  onThumbKey(event) {
    if (event.altKey || event.metaKey || event.ctrlKey) return;
    const thumbs = [...this.thumbsEl.querySelectorAll('.thumb')];
    const at = thumbs.indexOf(event.target.closest('.thumb'));
    if (at < 0) return;
    const rtl = getComputedStyle(this.thumbsEl).direction === 'rtl';
    const steps = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1, ArrowDown: 1, ArrowUp: -1 };
    let to;
    if (event.key in steps) to = Math.min(thumbs.length - 1, Math.max(0, at + steps[event.key]));
    else if (event.key === 'Home') to = 0;
    else if (event.key === 'End') to = thumbs.length - 1;
    else return;
    event.preventDefault();
    event.stopPropagation(); // the console's own keys (Home, End: first and last slide) stay out
    this.rove(thumbs[to]);
    thumbs[to].focus();
  }

  render() {
    this.stage.show({ page: this.page, viewport: this.viewport, blank: this.blank });
    const count = this.pageCount;
    this.pageIndicator.textContent = count ? formatNumber(this.page) + ' / ' + formatNumber(count) : '–';
    this.prevButton.disabled = !this.enabled || this.page <= 1;
    this.nextButton.disabled = !this.enabled || this.page >= count;
    this.prevEdge.disabled = this.prevButton.disabled;
    this.nextEdge.disabled = this.nextButton.disabled;
    // The strip's Tab stop is the slide on show, unless the focus is moving along the strip.
    const roving = this.thumbsEl.contains(document.activeElement);
    for (const thumb of this.thumbsEl.querySelectorAll('.thumb')) {
      const current = Number(thumb.dataset.page) === this.page;
      if (!roving) thumb.tabIndex = current ? 0 : -1;
      if (this.enabled) thumb.removeAttribute('aria-disabled');
      else thumb.setAttribute('aria-disabled', 'true');
      if (current) {
        thumb.setAttribute('aria-current', 'true');
        const strip = this.thumbsEl;
        const left = thumb.offsetLeft - strip.clientWidth / 2 + thumb.clientWidth / 2;
        if (strip.scrollWidth > strip.clientWidth) strip.scrollTo({ left: Math.max(0, left) });
      } else {
        thumb.removeAttribute('aria-current');
      }
    }
    this.renderZoom();
    this.renderBlank();
    if (this.hooks.onChange) this.hooks.onChange();
  }

  renderZoom() {
    const zoom = Math.round(100 / this.viewport.w);
    this.zoomLevel.textContent = t('poll.percent', { percent: zoom });
    this.zoomOut.disabled = !this.enabled || isFull(this.viewport);
    this.zoomIn.disabled = !this.enabled || this.viewport.w <= MIN_SIDE + 1e-9;
    this.zoomLevel.disabled = !this.enabled;
  }

  renderBlank() {
    this.blackButton.setAttribute('aria-pressed', String(this.blank === 'black'));
    this.whiteButton.setAttribute('aria-pressed', String(this.blank === 'white'));
  }

  // ---- input ----

  bindStage() {
    const stage = this.stage;
    const route = (type, own) => (event) => {
      if (this.inputHandler) this.inputHandler[type](event);
      else own(event);
    };
    stage.addEventListener('pointerdown', route('pointerdown', (event) => this.onPointerDown(event)));
    stage.addEventListener('pointermove', route('pointermove', (event) => this.onPointerMove(event)));
    stage.addEventListener('pointerup', route('pointerup', (event) => this.onPointerUp(event)));
    stage.addEventListener('pointercancel', route('pointercancel', (event) => this.onPointerUp(event, true)));
    stage.addEventListener('pointerleave', (event) => {
      if (this.inputHandler) return;
      if (event.pointerType === 'mouse' && !this.gesture && (this.pointerMode || this.laserKey)) this.hidePointer();
      if (event.pointerType === 'mouse') this.lastMouse = null;
    });
    stage.addEventListener('wheel', (event) => this.onWheel(event), { passive: false });
    stage.addEventListener('dblclick', (event) => {
      if (!this.enabled || this.pointerMode || this.inputHandler) return;
      const rect = this.stage.getBoundingClientRect();
      const fx = (event.clientX - rect.left) / rect.width;
      if (fx < 0.25 || fx > 0.75) return; // edge clicks turn pages
      if (isFull(this.viewport)) this.zoomBy(2, { x: event.clientX, y: event.clientY });
      else this.resetZoom();
    });
    stage.addEventListener('contextmenu', (event) => event.preventDefault());
  }

  onPointerDown(event) {
    if (!this.enabled) return;
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    this.stage.setPointerCapture(event.pointerId);
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.pointers.size === 2) {
      // Pinch: zoom around the midpoint of two fingers.
      clearTimeout(this.gesture && this.gesture.holdTimer);
      if (this.gesture && this.gesture.kind === 'laser') this.hidePointer();
      const [a, b] = [...this.pointers.values()];
      this.gesture = {
        kind: 'pinch', startDist: Math.hypot(a.x - b.x, a.y - b.y) || 1, startViewport: { ...this.viewport },
        lastMid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
      };
      return;
    }
    if (this.pointers.size > 2) return;
    const gesture = {
      kind: 'pending', id: event.pointerId, type: event.pointerType,
      startX: event.clientX, startY: event.clientY, lastX: event.clientX, lastY: event.clientY,
      startTime: Date.now(), holdTimer: null,
    };
    this.gesture = gesture;
    if (this.pointerMode || this.laserKey) {
      gesture.kind = 'laser';
      this.showPointerAt(event.clientX, event.clientY);
      return;
    }
    // Press and hold: the laser pointer until release.
    gesture.holdTimer = setTimeout(() => {
      if (this.gesture === gesture && gesture.kind === 'pending') {
        gesture.kind = 'laser';
        this.showPointerAt(gesture.lastX, gesture.lastY);
      }
    }, HOLD_MS);
  }

  onPointerMove(event) {
    if (event.pointerType === 'mouse') this.lastMouse = { x: event.clientX, y: event.clientY };
    const gesture = this.gesture;
    if (!gesture) {
      // Pointer mode with a mouse: the laser follows the mouse without a button.
      if (this.enabled && event.pointerType === 'mouse' && (this.pointerMode || this.laserKey)) {
        this.showPointerAt(event.clientX, event.clientY);
      }
      return;
    }
    if (this.pointers.has(event.pointerId)) this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (gesture.kind === 'pinch') {
      if (this.pointers.size < 2) return;
      const [a, b] = [...this.pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      const factor = dist / gesture.startDist;
      const target = gesture.startViewport.w / factor;
      this.zoomBy(this.viewport.w / target, mid, { final: false });
      // Two fingers moving together pan.
      this.panBy(mid.x - gesture.lastMid.x, mid.y - gesture.lastMid.y, false);
      gesture.lastMid = mid;
      return;
    }
    if (event.pointerId !== gesture.id) return;
    const dx = event.clientX - gesture.lastX;
    const dy = event.clientY - gesture.lastY;
    gesture.lastX = event.clientX;
    gesture.lastY = event.clientY;
    if (gesture.kind === 'laser') {
      this.showPointerAt(event.clientX, event.clientY);
      return;
    }
    const moved = Math.hypot(event.clientX - gesture.startX, event.clientY - gesture.startY);
    if (gesture.kind === 'pending' && moved > MOVE_SLOP) {
      clearTimeout(gesture.holdTimer);
      if (!isFull(this.viewport)) {
        gesture.kind = 'pan';
        this.stage.classList.add('is-panning');
      } else {
        gesture.kind = gesture.type === 'mouse' ? 'drag' : 'swipe';
      }
    }
    if (gesture.kind === 'pan') this.panBy(dx, dy, false);
  }

  panBy(dxPixels, dyPixels, final) {
    const ppu = this.stage.pixelsPerUnit();
    if (!ppu.x || !ppu.y) return;
    const v = this.viewport;
    this.setViewport({ x: v.x - dxPixels / ppu.x, y: v.y - dyPixels / ppu.y, w: v.w, h: v.h }, { final });
  }

  onPointerUp(event, cancelled = false) {
    this.pointers.delete(event.pointerId);
    const gesture = this.gesture;
    if (!gesture) return;
    if (gesture.kind === 'pinch') {
      if (this.pointers.size === 0) {
        this.gesture = null;
        this.sendZoom.flush();
      }
      return;
    }
    if (event.pointerId !== gesture.id) return;
    clearTimeout(gesture.holdTimer);
    this.gesture = null;
    this.stage.classList.remove('is-panning');
    switch (gesture.kind) {
      case 'laser':
        // In pointer mode a mouse keeps showing the pointer while it hovers.
        if (!(event.pointerType === 'mouse' && (this.pointerMode || this.laserKey)) || cancelled) this.hidePointer();
        break;
      case 'pan':
        this.sendZoom.flush();
        break;
      case 'swipe': {
        const dx = event.clientX - gesture.startX;
        const dy = event.clientY - gesture.startY;
        if (!cancelled && Math.abs(dx) > SWIPE_MIN && Math.abs(dx) > Math.abs(dy) * 1.5) {
          if (dx < 0) this.next();
          else this.prev();
        }
        break;
      }
      case 'pending': {
        if (cancelled) break;
        // A tap or click: the left or right edge turns the page.
        const rect = this.stage.getBoundingClientRect();
        const fx = (event.clientX - rect.left) / rect.width;
        if (fx < 0.25) this.prev();
        else if (fx > 0.75) this.next();
        break;
      }
      default:
        break;
    }
  }

  onWheel(event) {
    if (!this.enabled) return;
    event.preventDefault();
    let delta = event.deltaY;
    if (event.deltaMode === 1) delta *= 16;
    else if (event.deltaMode === 2) delta *= 400;
    // Trackpad horizontal scroll pans when zoomed.
    if (!event.ctrlKey && Math.abs(event.deltaX) > Math.abs(event.deltaY) && !isFull(this.viewport)) {
      this.panBy(-event.deltaX, 0, false);
    } else {
      const factor = Math.exp(-delta * (event.ctrlKey ? 0.01 : 0.002));
      this.zoomBy(factor, { x: event.clientX, y: event.clientY }, { final: false });
    }
    clearTimeout(this.wheelTimer);
    this.wheelTimer = setTimeout(() => {
      this.wheelTimer = null;
      this.sendZoom.flush();
    }, 150);
  }

  bindKeys() {
    document.addEventListener('keydown', (event) => {
      if (!this.enabled || isTyping(event) || dialogOpen() || event.altKey || event.metaKey || event.ctrlKey) return;
      const key = event.key;
      let handled = true;
      switch (key) {
        case 'ArrowRight':
        case 'ArrowDown':
        case 'PageDown':
        case 'n':
        case 'N':
          this.next();
          break;
        case 'ArrowLeft':
        case 'ArrowUp':
        case 'PageUp':
        case 'p':
        case 'P':
          this.prev();
          break;
        case ' ':
          if (event.target instanceof HTMLButtonElement) {
            handled = false; // Space presses the focused button.
            break;
          }
          if (event.shiftKey) this.prev();
          else this.next();
          break;
        case 'Home':
          this.goto(1);
          break;
        case 'End':
          this.goto(this.pageCount);
          break;
        case 'b':
        case 'B':
          this.toggleBlank('black');
          break;
        case 'w':
        case 'W':
          this.toggleBlank('white');
          break;
        case 'l':
        case 'L':
          this.togglePointerMode();
          break;
        case '.':
          if (!event.repeat) {
            this.laserKey = true;
            const at = this.lastMouse || this.centreOfStage();
            this.showPointerAt(at.x, at.y);
          }
          break;
        case 'f':
        case 'F':
          this.fullscreen();
          break;
        case '0':
          this.resetZoom();
          break;
        case '+':
        case '=':
          this.zoomBy(ZOOM_STEP);
          break;
        case '-':
        case '_':
          this.zoomBy(1 / ZOOM_STEP);
          break;
        case 'Escape':
          if (this.pointerMode) this.togglePointerMode(false);
          else if (this.blank !== 'none') this.setBlank('none');
          else handled = false;
          break;
        default:
          handled = false;
      }
      if (handled) event.preventDefault();
    });
    document.addEventListener('keyup', (event) => {
      if (event.key === '.' && this.laserKey) {
        this.laserKey = false;
        if (!this.pointerMode) this.hidePointer();
      }
    });
    window.addEventListener('blur', () => {
      if (this.laserKey) {
        this.laserKey = false;
        if (!this.pointerMode) this.hidePointer();
      }
    });
  }

  centreOfStage() {
    const rect = this.stage.frameRect();
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }
}
