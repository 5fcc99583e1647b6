// <podium-stage>: shows one page of a deck, letterboxed best-fit, with a viewport (zoom), a laser
// pointer and a blank screen. Used by the presenter console, the viewer and rehearsal.
//
// Everything is in normalised page space (0..1): the viewport {x, y, w, h} is the rectangle of
// the page that fills the stage (best fit, centred), the pointer is a point of the page.
//
// State is mirrored on attributes (for tests and CSS): data-page, data-viewport="x,y,w,h",
// data-blank, data-pointer="x,y" (absent when hidden), data-strokes (committed strokes drawn);
// the visible <img> has class "current".
//
// Ink: setInk(strokes, liveStroke) draws the strokes it is given (the caller picks those of the
// page on display) on a canvas over the visible part of the page, plus one stroke in progress on
// a second canvas. A stroke is {tool: 'pen'|'highlighter', color: '#RRGGBB', width, points:
// [[x, y, pressure], ...]} in page space; width is a fraction of the page width. Drawn like the
// PDF export: round caps and joins, width × (0.5 + 0.5 × pressure); a highlighter at 3× the width
// and 35% opacity, as one path of its mean pressure.

import { t } from '../core/i18n.js';

const FULL = Object.freeze({ x: 0, y: 0, w: 1, h: 1 });
/** Above this many device pixels across, the full-size image is used instead of the medium one. */
const MEDIUM_LIMIT = 1100;
/** As the export draws it (PodiumMedia's annotation overlay). */
const HIGHLIGHTER_WIDTH = 3;
const HIGHLIGHTER_OPACITY = 0.35;
/** The stage's transitions (styles.css, podium-stage.animate): the ink follows the image. */
const ANIMATE = 'transform 0.22s ease-out';

function cleanColor(color) {
  return typeof color === 'string' && /^#[0-9a-fA-F]{6}$/.test(color) ? color : '#e53935';
}

function pressureOf(point) {
  const p = Number(point[2]);
  return Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0.5;
}

/**
 * Draws one stroke on a 2D context. `map` takes page space to the context's pixels:
 * x → ox + x × sx, y → oy + y × sy (sx is the page's width in pixels).
 */
export function drawStroke(ctx, stroke, map) {
  const points = Array.isArray(stroke && stroke.points) ? stroke.points : [];
  if (!points.length) return;
  const highlighter = stroke.tool === 'highlighter';
  const base = Math.max(0, Number(stroke.width) || 0) * (highlighter ? HIGHLIGHTER_WIDTH : 1) * map.sx;
  const px = (p) => map.ox + p[0] * map.sx;
  const py = (p) => map.oy + p[1] * map.sy;
  const widthAt = (pressure) => Math.max(0.6, base * (0.5 + 0.5 * pressure));
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.strokeStyle = cleanColor(stroke.color);
  ctx.fillStyle = ctx.strokeStyle;
  if (highlighter) ctx.globalAlpha = HIGHLIGHTER_OPACITY;
  if (points.length === 1) {
    ctx.beginPath();
    ctx.arc(px(points[0]), py(points[0]), widthAt(pressureOf(points[0])) / 2, 0, Math.PI * 2);
    ctx.fill();
    ctx.restore();
    return;
  }
  if (highlighter) {
    // One path (no darker overlaps), of the mean pressure, like the export.
    const mean = points.reduce((sum, p) => sum + pressureOf(p), 0) / points.length;
    ctx.lineWidth = widthAt(mean);
    ctx.beginPath();
    ctx.moveTo(px(points[0]), py(points[0]));
    for (let i = 1; i < points.length - 1; i += 1) {
      const mx = (px(points[i]) + px(points[i + 1])) / 2;
      const my = (py(points[i]) + py(points[i + 1])) / 2;
      ctx.quadraticCurveTo(px(points[i]), py(points[i]), mx, my);
    }
    const last = points[points.length - 1];
    ctx.lineTo(px(last), py(last));
    ctx.stroke();
    ctx.restore();
    return;
  }
  // A pen: quadratic curves through the midpoints, each piece as wide as its point's pressure.
  let fromX = px(points[0]);
  let fromY = py(points[0]);
  for (let i = 1; i < points.length; i += 1) {
    const p = points[i];
    const last = i === points.length - 1;
    const toX = last ? px(p) : (px(p) + px(points[i + 1])) / 2;
    const toY = last ? py(p) : (py(p) + py(points[i + 1])) / 2;
    ctx.lineWidth = widthAt((pressureOf(points[i - 1]) + pressureOf(p)) / 2);
    ctx.beginPath();
    ctx.moveTo(fromX, fromY);
    if (last) ctx.lineTo(toX, toY);
    else ctx.quadraticCurveTo(px(p), py(p), toX, toY);
    ctx.stroke();
    fromX = toX;
    fromY = toY;
  }
  ctx.restore();
}

function round3(n) {
  return Math.round(n * 1000) / 1000;
}

function sameViewport(a, b) {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

export class PodiumStage extends HTMLElement {
  constructor() {
    super();
    this._pages = [];
    this._page = 1;
    this._viewport = { ...FULL };
    this._blank = 'none';
    this._pointer = null;
    this._images = new Map(); // page number -> {img, url}
    this._layout = null;
    this._built = false;
    this._strokes = [];
    this._liveStroke = null;
    this._inkMap = null; // the page → canvas mapping the ink was last drawn with
  }

  connectedCallback() {
    if (!this._built) this.build();
    this._resize = new ResizeObserver(() => this.layout());
    this._resize.observe(this);
    this.reflect();
    this.render();
  }

  disconnectedCallback() {
    if (this._resize) this._resize.disconnect();
  }

  build() {
    this._built = true;
    this.classList.add('podium-stage');
    if (!this.hasAttribute('role')) this.setAttribute('role', 'img');
    this.frame = document.createElement('div');
    this.frame.className = 'stage-frame';
    this.pointerDot = document.createElement('div');
    this.pointerDot.className = 'stage-pointer';
    this.pointerDot.hidden = true;
    this.blankLayer = document.createElement('div');
    this.blankLayer.className = 'stage-blank';
    this.inkCanvas = document.createElement('canvas');
    this.inkCanvas.className = 'stage-ink';
    this.inkCanvas.setAttribute('aria-hidden', 'true');
    this.liveCanvas = document.createElement('canvas');
    this.liveCanvas.className = 'stage-ink stage-ink-live';
    this.liveCanvas.setAttribute('aria-hidden', 'true');
    this.frame.append(this.inkCanvas, this.liveCanvas, this.pointerDot);
    this.prepend(this.frame);
    this.frame.after(this.blankLayer);
  }

  // ---- public API ----

  /** The deck's pages: [{number, width, height, imageUrl, mediumUrl, thumbnailUrl}]. */
  set pages(list) {
    this._pages = Array.isArray(list) ? list : [];
    for (const entry of this._images.values()) entry.img.remove();
    this._images.clear();
    this._page = this.clampPage(this._page);
    this.reflect();
    this.render();
  }

  get pages() {
    return this._pages;
  }

  get page() {
    return this._page;
  }

  get viewport() {
    return { ...this._viewport };
  }

  get blank() {
    return this._blank;
  }

  get pageCount() {
    return this._pages.length;
  }

  clampPage(page) {
    const count = this._pages.length;
    if (!count) return Math.max(1, page | 0);
    return Math.min(count, Math.max(1, page | 0));
  }

  /** Applies a whole state {page, viewport, blank} at once. */
  show({ page, viewport, blank } = {}) {
    if (page !== undefined) this._page = this.clampPage(page);
    if (viewport) this._viewport = this.cleanViewport(viewport);
    if (blank) this._blank = blank;
    this.reflect();
    this.render();
  }

  setPage(page) {
    const next = this.clampPage(page);
    if (next === this._page) return;
    this._page = next;
    this._viewport = { ...FULL };
    this.reflect();
    this.render();
  }

  setViewport(viewport) {
    const next = this.cleanViewport(viewport);
    if (sameViewport(next, this._viewport)) return;
    this._viewport = next;
    this.reflect();
    this.layout();
  }

  setBlank(mode) {
    this._blank = mode === 'black' || mode === 'white' ? mode : 'none';
    this.reflect();
  }

  /** Shows the laser pointer at a point of the current page, or hides it (null). */
  setPointer(point) {
    this._pointer = point && Number.isFinite(point.x) && Number.isFinite(point.y)
      ? { x: Math.min(1, Math.max(0, point.x)), y: Math.min(1, Math.max(0, point.y)) }
      : null;
    this.reflect();
    this.placePointer();
  }

  /**
   * The ink on display: `strokes` (committed, already those of the page shown) and `liveStroke`
   * (the one being drawn, or null). Passing the same array again redraws only the live stroke.
   */
  setInk(strokes, liveStroke = null) {
    const list = Array.isArray(strokes) ? strokes : [];
    const changed = list !== this._strokes;
    this._strokes = list;
    this._liveStroke = liveStroke && Array.isArray(liveStroke.points) ? liveStroke : null;
    this.dataset.strokes = String(list.length);
    this.dataset.inking = this._liveStroke ? 'true' : 'false';
    if (changed) this.drawInk();
    this.drawLive();
  }

  /** The rectangle (client pixels) where the visible part of the page is drawn. */
  frameRect() {
    return this.frame.getBoundingClientRect();
  }

  /**
   * Converts client pixel coordinates to normalised page coordinates of the current page,
   * through the viewport. Returns {x, y, inside}; x and y may lie outside 0..1.
   */
  clientToPage(clientX, clientY) {
    const rect = this.frameRect();
    const v = this._viewport;
    const fx = rect.width > 0 ? (clientX - rect.left) / rect.width : 0;
    const fy = rect.height > 0 ? (clientY - rect.top) / rect.height : 0;
    const x = v.x + fx * v.w;
    const y = v.y + fy * v.h;
    return { x, y, inside: fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1 };
  }

  /** How many client pixels one unit of normalised page space spans, horizontally and vertically. */
  pixelsPerUnit() {
    const rect = this.frameRect();
    const v = this._viewport;
    return { x: rect.width / v.w, y: rect.height / v.h };
  }

  // ---- internals ----

  cleanViewport(v) {
    if (!v) return { ...FULL };
    const w = Math.min(1, Math.max(0.01, Number(v.w) || 1));
    const h = Math.min(1, Math.max(0.01, Number(v.h) || 1));
    const x = Math.min(1 - w, Math.max(0, Number(v.x) || 0));
    const y = Math.min(1 - h, Math.max(0, Number(v.y) || 0));
    return { x, y, w, h };
  }

  reflect() {
    this.dataset.page = String(this._page);
    const v = this._viewport;
    this.dataset.viewport = [v.x, v.y, v.w, v.h].map(round3).join(',');
    this.dataset.blank = this._blank;
    this.dataset.zoomed = v.w < 0.999 || v.h < 0.999 ? 'true' : 'false';
    if (!this.dataset.strokes) this.dataset.strokes = String(this._strokes.length);
    if (this._pointer) this.dataset.pointer = round3(this._pointer.x) + ',' + round3(this._pointer.y);
    else delete this.dataset.pointer;
    const count = this._pages.length;
    this.setAttribute('aria-label', count ? t('stage.slide-of', { page: this._page, count }) : t('stage.slide'));
    this.setAttribute('aria-roledescription', t('stage.slide'));
  }

  pageInfo(number) {
    return this._pages[number - 1] || null;
  }

  /** The size (CSS pixels) the whole current page is drawn at, for choosing an image size. */
  wantsLargeImage(info) {
    const rect = this.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    if (!rect.width || !rect.height) return false;
    const v = this._viewport;
    const scale = Math.min(rect.width / (v.w * info.width), rect.height / (v.h * info.height));
    return info.width * scale * ratio > MEDIUM_LIMIT;
  }

  urlFor(info, large) {
    if (large) return info.imageUrl || info.mediumUrl;
    return info.mediumUrl || info.imageUrl;
  }

  /** Creates (or upgrades) the <img> of a page. Returns the entry. */
  ensureImage(number, large) {
    const info = this.pageInfo(number);
    if (!info) return null;
    let entry = this._images.get(number);
    const wanted = this.urlFor(info, large);
    // Never trade a loaded large image for a medium one.
    if (entry && (entry.url === wanted || (entry.large && !large))) return entry;
    const img = document.createElement('img');
    img.className = 'stage-img';
    img.alt = '';
    img.draggable = false;
    img.decoding = 'async';
    img.dataset.number = String(number);
    img.src = wanted;
    if (typeof img.decode === 'function') img.decode().catch(() => {});
    const old = entry;
    entry = { img, url: wanted, large };
    this._images.set(number, entry);
    this.frame.insertBefore(img, this.pointerDot);
    if (old) {
      if (old.img.classList.contains('current')) {
        // Keep the old picture on screen until the sharper one has arrived.
        old.img.classList.remove('current');
        old.img.classList.add('leaving');
        const drop = () => old.img.remove();
        img.addEventListener('load', drop, { once: true });
        img.addEventListener('error', drop, { once: true });
      } else {
        old.img.remove();
      }
    }
    return entry;
  }

  render() {
    if (!this._built) return;
    const info = this.pageInfo(this._page);
    if (!info) {
      this.frame.hidden = true;
      return;
    }
    this.frame.hidden = false;
    if (this._inkPage !== this._page) this._inkMap = null; // a new page: no ink animation
    this._inkPage = this._page;
    const large = this.wantsLargeImage(info);
    const current = this.ensureImage(this._page, large);
    // Neighbours preloaded, so a page change shows at once.
    const keep = new Set([this._page]);
    for (const n of [this._page + 1, this._page - 1, this._page + 2]) {
      if (this.pageInfo(n)) {
        keep.add(n);
        this.ensureImage(n, large);
      }
    }
    for (const [n, entry] of this._images) {
      if (!keep.has(n)) {
        entry.img.remove();
        this._images.delete(n);
      }
    }
    for (const [n, entry] of this._images) {
      const isCurrent = n === this._page;
      if (isCurrent && !entry.img.classList.contains('current')) {
        // The previous page stays visible underneath until this one has loaded.
        for (const other of this.frame.querySelectorAll('img.current')) {
          if (other === entry.img) continue;
          other.classList.remove('current');
          if (!entry.img.complete) {
            other.classList.add('leaving');
            const done = () => other.classList.remove('leaving');
            entry.img.addEventListener('load', done, { once: true });
            entry.img.addEventListener('error', done, { once: true });
          }
        }
        entry.img.classList.add('current');
      } else if (!isCurrent) {
        entry.img.classList.remove('current');
      }
      entry.img.alt = isCurrent ? t('stage.slide-of', { page: n, count: this._pages.length }) : '';
    }
    void current;
    this.layout();
  }

  layout() {
    if (!this._built) return;
    const info = this.pageInfo(this._page);
    if (!info) return;
    const width = this.clientWidth;
    const height = this.clientHeight;
    if (!width || !height) return;
    const v = this._viewport;
    const pw = info.width || 1;
    const ph = info.height || 1;
    // Scale so that the viewport rectangle of the page fills the stage, best fit, centred.
    const scale = Math.min(width / (v.w * pw), height / (v.h * ph));
    const frameW = v.w * pw * scale;
    const frameH = v.h * ph * scale;
    const left = (width - frameW) / 2;
    const top = (height - frameH) / 2;
    const fs = this.frame.style;
    fs.left = left + 'px';
    fs.top = top + 'px';
    fs.width = frameW + 'px';
    fs.height = frameH + 'px';
    const imageW = pw * scale;
    const imageH = ph * scale;
    const tx = -v.x * imageW;
    const ty = -v.y * imageH;
    for (const [n, entry] of this._images) {
      if (n !== this._page && !entry.img.classList.contains('leaving')) {
        // Neighbours: laid out as if shown whole, so they are ready to appear.
        const p = this.pageInfo(n) || info;
        const s = Math.min(width / p.width, height / p.height);
        entry.img.style.width = p.width * s + 'px';
        entry.img.style.height = p.height * s + 'px';
        entry.img.style.transform = 'none';
        continue;
      }
      if (n !== this._page) continue;
      const style = entry.img.style;
      style.width = imageW + 'px';
      style.height = imageH + 'px';
      style.transform = 'translate(' + tx + 'px, ' + ty + 'px)';
    }
    this._layout = { scale, imageW, imageH, frameW, frameH };
    this.placeInk({ ox: tx, oy: ty, sx: imageW, sy: imageH }, frameW, frameH);
    // Zoomed in far enough, swap in the sharper image.
    const entry = this._images.get(this._page);
    if (entry && !entry.large && this.wantsLargeImage(info)) this.render();
    this.placePointer();
  }

  /** Sizes the ink canvases to the visible part of the page and redraws them for `map`. */
  placeInk(map, frameW, frameH) {
    const ratio = window.devicePixelRatio || 1;
    const old = this._inkMap;
    this._inkMap = { ...map, ratio, frameW, frameH };
    const same = old && old.ox === map.ox && old.oy === map.oy && old.sx === map.sx && old.sy === map.sy
      && old.ratio === ratio && old.frameW === frameW && old.frameH === frameH;
    if (same) return;
    for (const canvas of [this.inkCanvas, this.liveCanvas]) {
      const w = Math.max(1, Math.round(frameW * ratio));
      const h = Math.max(1, Math.round(frameH * ratio));
      if (canvas.width !== w) canvas.width = w;
      if (canvas.height !== h) canvas.height = h;
      canvas.style.width = frameW + 'px';
      canvas.style.height = frameH + 'px';
    }
    this.drawInk();
    this.drawLive();
    // On an animated stage the image glides to its new place: make the ink glide with it, from
    // where the old mapping had it (both move linearly with the same easing, so they stay together).
    const animate = old && this.classList.contains('animate') && map.sx > 0 && old.sx > 0;
    for (const canvas of [this.inkCanvas, this.liveCanvas]) {
      canvas.style.transition = 'none';
      if (!animate) {
        canvas.style.transform = 'none';
        continue;
      }
      const sx = old.sx / map.sx;
      const sy = old.sy / map.sy;
      const ax = old.ox - sx * map.ox;
      const ay = old.oy - sy * map.oy;
      canvas.style.transform = 'translate(' + ax + 'px, ' + ay + 'px) scale(' + sx + ', ' + sy + ')';
      void canvas.offsetWidth; // start from there
      canvas.style.transition = ANIMATE;
      canvas.style.transform = 'none';
    }
  }

  drawInk() {
    if (!this._built) return;
    this.paint(this.inkCanvas, this._strokes);
  }

  drawLive() {
    if (!this._built) return;
    this.paint(this.liveCanvas, this._liveStroke ? [this._liveStroke] : []);
  }

  paint(canvas, strokes) {
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const m = this._inkMap;
    if (!m || !strokes.length) return;
    ctx.setTransform(m.ratio, 0, 0, m.ratio, 0, 0);
    for (const stroke of strokes) drawStroke(ctx, stroke, m);
  }

  placePointer() {
    if (!this._built) return;
    const p = this._pointer;
    const layout = this._layout;
    if (!p || !layout) {
      this.pointerDot.hidden = true;
      return;
    }
    const v = this._viewport;
    const left = (p.x - v.x) * layout.imageW;
    const top = (p.y - v.y) * layout.imageH;
    const outside = left < 0 || top < 0 || left > layout.frameW || top > layout.frameH;
    this.pointerDot.hidden = outside;
    this.pointerDot.style.transform = 'translate(' + left + 'px, ' + top + 'px)';
  }
}

if (!customElements.get('podium-stage')) customElements.define('podium-stage', PodiumStage);
