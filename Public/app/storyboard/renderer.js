// The shot editor's canvas: the view (pan, zoom, rotation over the shot fitted to the stage), one
// offscreen canvas per committed layer (a new stroke is drawn onto its layer's canvas, not the
// thousands before it; a reference image under the layer's strokes), the onion skin (neighbouring
// shots, tinted), strokes being drawn (ours and others'), composed with requestAnimationFrame when
// something changed.

import { drawStroke } from './freehand.js';
import { applyLayerTransform, drawLayer, aspectValue } from './common.js';

const MARGIN = 20;
const ONION_TINT = { previous: '#e53935', next: '#2e9e44' };
const ONION_FALLOFF = [1, 0.6, 0.35];
const MAX_CACHE_PX = 4096;

function transformKey(t) {
  return t ? [t.x || 0, t.y || 0, t.scale || 1, t.rotation || 0].join(',') : '0,0,1,0';
}

// Reference images (a layer's `image`: {blob, width, height}), loaded once per blob from /blobs/;
// whoever waits for one is told when it has come.
const pictures = new Map(); // blob -> {img, ready, failed, waiting: Set<() => void>}

function picture(image, onReady) {
  let entry = pictures.get(image.blob);
  if (!entry) {
    const img = new Image();
    entry = { img, ready: false, failed: false, waiting: new Set() };
    pictures.set(image.blob, entry);
    const settle = (ok) => {
      entry.ready = ok;
      entry.failed = !ok;
      for (const wake of entry.waiting) wake();
      entry.waiting.clear();
    };
    img.addEventListener('load', () => settle(true));
    img.addEventListener('error', () => settle(false));
    img.decoding = 'async';
    img.src = '/blobs/' + encodeURIComponent(image.blob);
  }
  if (!entry.ready && !entry.failed && onReady) entry.waiting.add(onReady);
  return entry;
}

/** The picture's key in a layer cache: its blob and whether it has loaded. */
function pictureKey(layer) {
  if (!layer.image) return '';
  const entry = pictures.get(layer.image.blob);
  return layer.image.blob + ':' + (entry && entry.ready ? 1 : 0);
}

/**
 * Draws a layer's reference image into a w×h box through the layer's transform: the whole
 * picture fitted into the shot and centred (then moved, scaled and turned with the layer).
 */
export function drawPicture(ctx, layer, transform, w, h, onReady) {
  if (!layer.image) return false;
  const entry = picture(layer.image, onReady);
  if (!entry.ready) return false;
  // Its proportions as the browser shows it (a photo turned by its EXIF orientation included).
  const width = entry.img.naturalWidth || layer.image.width;
  const height = entry.img.naturalHeight || layer.image.height;
  const fit = Math.min(w / width, h / height);
  const pw = width * fit;
  const ph = height * fit;
  ctx.save();
  applyLayerTransform(ctx, transform, w, h);
  ctx.drawImage(entry.img, (w - pw) / 2, (h - ph) / 2, pw, ph);
  ctx.restore();
  return true;
}

export class SketchRenderer {
  /**
   * @param {HTMLCanvasElement} canvas  the shot, composed
   * @param {HTMLCanvasElement} overlay the tools' marks (ruler, lasso, selection, eraser)
   */
  constructor(canvas, overlay) {
    this.canvas = canvas;
    this.overlay = overlay;
    this.ctx = canvas.getContext('2d');
    this.octx = overlay.getContext('2d');
    this.aspect = 16 / 9;
    this.view = { panX: 0, panY: 0, zoom: 1, rotation: 0 };
    this.size = { w: 0, h: 0, dpr: 1 };
    this.fitW = 0;
    this.fitH = 0;
    this.caches = new Map(); // layer id -> {canvas, ids, tkey, w, h, skipKey}
    this.onion = new Map(); // shot id -> {canvas, key}
    this.frame = null; // what to draw: set by the editor
    this.dirty = true;
    this.drawOverlay = null; // (octx, renderer) => void
    this.onFrame = null;
    this.raf = 0;
  }

  setAspect(ratio) {
    const value = aspectValue(ratio);
    if (value !== this.aspect) {
      this.aspect = value;
      this.resize();
    }
  }

  /** Matches the canvases to the stage's size. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = Math.min(3, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.round(rect.width));
    const h = Math.max(1, Math.round(rect.height));
    this.size = { w, h, dpr };
    for (const c of [this.canvas, this.overlay]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const margin = w < 500 ? 8 : MARGIN;
    this.fitW = Math.max(10, Math.min(w - 2 * margin, (h - 2 * margin) * this.aspect));
    this.fitH = this.fitW / this.aspect;
    this.invalidate();
  }

  /** The matrix from the shot's fitted box (fitW × fitH css pixels) to the stage (css pixels). */
  matrix() {
    const v = this.view;
    return new DOMMatrix()
      .translateSelf(this.size.w / 2 + v.panX, this.size.h / 2 + v.panY)
      .rotateSelf((v.rotation * 180) / Math.PI)
      .scaleSelf(v.zoom, v.zoom)
      .translateSelf(-this.fitW / 2, -this.fitH / 2);
  }

  /** A point of the stage (css pixels from its corner) in normalised shot coordinates. */
  toShot(x, y) {
    const p = this.matrix().inverse().transformPoint(new DOMPoint(x, y));
    return [p.x / this.fitW, p.y / this.fitH];
  }

  /** A normalised shot point on the stage (css pixels). */
  toStage(nx, ny) {
    const p = this.matrix().transformPoint(new DOMPoint(nx * this.fitW, ny * this.fitH));
    return [p.x, p.y];
  }

  /** Stage pixels per shot unit (the shot's height is one unit). */
  pixelsPerUnit() {
    return this.fitH * this.view.zoom;
  }

  /** Changes the view keeping the shot point under (ax, ay) where it is. */
  setView(changes, anchor = null) {
    const a = anchor || [this.size.w / 2, this.size.h / 2];
    const p = this.toShot(a[0], a[1]);
    Object.assign(this.view, changes);
    this.view.zoom = Math.min(16, Math.max(0.2, this.view.zoom));
    if (!('panX' in changes)) {
      const q = this.toStage(p[0], p[1]);
      this.view.panX += a[0] - q[0];
      this.view.panY += a[1] - q[1];
    }
    this.invalidate();
  }

  resetView() {
    this.view = { panX: 0, panY: 0, zoom: 1, rotation: 0 };
    this.invalidate();
  }

  invalidate() {
    this.dirty = true;
    if (!this.raf) this.raf = requestAnimationFrame(() => this.draw());
  }

  /** The offscreen canvases' resolution: the fitted box times the zoom, in steps of two. */
  cacheScale() {
    const z = this.view.zoom <= 1.4 ? 1 : this.view.zoom <= 2.8 ? 2 : 4;
    const scale = this.size.dpr * z;
    return Math.min(scale, MAX_CACHE_PX / Math.max(this.fitW, this.fitH));
  }

  /** The canvas of a committed layer, redrawn only as far as it changed. */
  layerCanvas(layer, transform, skip) {
    const scale = this.cacheScale();
    const w = Math.round(this.fitW * scale);
    const h = Math.round(this.fitH * scale);
    const tkey = transformKey(transform);
    const skipKey = skip && skip.size ? [...skip].sort().join(',') : '';
    const pkey = pictureKey(layer);
    let c = this.caches.get(layer.id);
    const strokes = layer.strokes;
    if (c && c.w === w && c.h === h && c.tkey === tkey && c.skipKey === skipKey && c.pkey === pkey
      && c.ids.length <= strokes.length
      && c.ids.every((id, i) => strokes[i].id === id)) {
      // Only strokes added on top since: drawn onto what is there.
      if (c.ids.length < strokes.length) {
        const fresh = strokes.slice(c.ids.length).filter((s) => !skip || !skip.has(s.id));
        const ctx = c.canvas.getContext('2d');
        ctx.setTransform(scale, 0, 0, scale, 0, 0);
        drawLayer(ctx, { ...layer, strokes: fresh, transform }, this.fitW, this.fitH);
        c.ids = strokes.map((s) => s.id);
      }
      return c.canvas;
    }
    if (!c) c = { canvas: document.createElement('canvas') };
    c.canvas.width = w;
    c.canvas.height = h;
    const ctx = c.canvas.getContext('2d');
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.clearRect(0, 0, this.fitW, this.fitH);
    // The reference image under the layer's strokes (drawn again once it has loaded).
    drawPicture(ctx, layer, transform, this.fitW, this.fitH, () => this.invalidate());
    drawLayer(ctx, { ...layer, transform }, this.fitW, this.fitH, skip);
    Object.assign(c, { ids: strokes.map((s) => s.id), w, h, tkey, skipKey, pkey: pictureKey(layer) });
    this.caches.set(layer.id, c);
    return c.canvas;
  }

  /** The outline of a layer's reference image through its transform (dashed, light and dark). */
  pictureFrame(ctx, layer, transform) {
    const entry = pictures.get(layer.image.blob);
    const width = (entry && entry.img.naturalWidth) || layer.image.width;
    const height = (entry && entry.img.naturalHeight) || layer.image.height;
    const fit = Math.min(this.fitW / width, this.fitH / height);
    const pw = width * fit;
    const ph = height * fit;
    ctx.save();
    applyLayerTransform(ctx, transform, this.fitW, this.fitH);
    const unit = 1 / (this.view.zoom * ((transform && transform.scale) || 1));
    ctx.lineWidth = 2 * unit;
    ctx.setLineDash([6 * unit, 4 * unit]);
    for (const [color, offset] of [['#ffffff', 0], ['#1c7ed6', 5 * unit]]) {
      ctx.strokeStyle = color;
      ctx.lineDashOffset = offset;
      ctx.strokeRect((this.fitW - pw) / 2, (this.fitH - ph) / 2, pw, ph);
    }
    ctx.restore();
  }

  /** A neighbouring shot, drawn and tinted, cached while it does not change. */
  onionCanvas(shot, tint) {
    const scale = Math.min(2, this.size.dpr);
    const w = Math.round(this.fitW * scale);
    const h = Math.round(this.fitH * scale);
    let key = tint + '|' + w + 'x' + h;
    for (const layer of shot.layers) {
      key += '|' + layer.id + ':' + layer.visible + ':' + layer.strokes.length + ':'
        + (layer.strokes.length ? layer.strokes[layer.strokes.length - 1].id : '') + ':' + transformKey(layer.transform);
    }
    let c = this.onion.get(shot.id);
    if (c && c.key === key) return c.canvas;
    if (!c) c = { canvas: document.createElement('canvas') };
    c.canvas.width = w;
    c.canvas.height = h;
    const ctx = c.canvas.getContext('2d');
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    for (const layer of shot.layers) if (layer.visible) drawLayer(ctx, layer, this.fitW, this.fitH);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalCompositeOperation = 'source-in';
    ctx.fillStyle = tint;
    ctx.fillRect(0, 0, w, h);
    ctx.globalCompositeOperation = 'source-over';
    c.key = key;
    this.onion.set(shot.id, c);
    return c.canvas;
  }

  /** Forgets the caches of layers and shots that are gone. */
  prune(layerIds, shotIds) {
    for (const id of this.caches.keys()) if (!layerIds.has(id)) this.caches.delete(id);
    for (const id of this.onion.keys()) if (!shotIds.has(id)) this.onion.delete(id);
  }

  draw() {
    this.raf = 0;
    if (!this.dirty) return;
    this.dirty = false;
    const { ctx, size } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    const f = this.frame;
    if (f && f.shot) {
      const m = this.matrix();
      const d = size.dpr;
      ctx.setTransform(m.a * d, m.b * d, m.c * d, m.d * d, m.e * d, m.f * d);
      ctx.fillStyle = f.shot.background || '#ffffff';
      ctx.fillRect(0, 0, this.fitW, this.fitH);
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, 0, this.fitW, this.fitH);
      ctx.clip();
      // Onion skin under the drawing: the farthest first.
      if (f.onion) {
        for (const side of ['previous', 'next']) {
          const shots = f.onion[side] || [];
          for (let i = shots.length - 1; i >= 0; i -= 1) {
            ctx.globalAlpha = f.onion.opacity * (ONION_FALLOFF[i] || 0.3);
            ctx.drawImage(this.onionCanvas(shots[i], ONION_TINT[side]), 0, 0, this.fitW, this.fitH);
          }
        }
        ctx.globalAlpha = 1;
      }
      for (const layer of f.shot.layers) {
        if (!layer.visible) continue;
        const transform = (f.transforms && f.transforms[layer.id]) || layer.transform;
        const skip = f.hidden && f.hidden.get(layer.id);
        const canvas = this.layerCanvas(layer, transform, skip);
        ctx.globalAlpha = layer.opacity ?? 1;
        ctx.drawImage(canvas, 0, 0, this.fitW, this.fitH);
        ctx.globalAlpha = 1;
        // A reference image being moved or scaled: its frame, so its edges show however dim it is.
        if (layer.image && f.transforms && f.transforms[layer.id]) this.pictureFrame(ctx, layer, transform);
        // Strokes of this layer shown over it: being drawn, or a selection being moved.
        for (const live of f.live || []) {
          if (live.layer !== layer.id) continue;
          ctx.save();
          ctx.globalAlpha = layer.opacity ?? 1;
          applyLayerTransform(ctx, transform, this.fitW, this.fitH);
          for (const stroke of live.strokes) {
            try {
              drawStroke(ctx, stroke, { width: this.fitW, height: this.fitH, last: !live.drawing });
            } catch (_) {
              // too short to draw yet
            }
          }
          ctx.restore();
        }
      }
      ctx.restore();
    }
    const o = this.octx;
    o.setTransform(1, 0, 0, 1, 0, 0);
    o.clearRect(0, 0, this.overlay.width, this.overlay.height);
    if (this.drawOverlay) {
      o.setTransform(size.dpr, 0, 0, size.dpr, 0, 0);
      this.drawOverlay(o, this);
    }
    if (this.onFrame) this.onFrame();
  }
}
