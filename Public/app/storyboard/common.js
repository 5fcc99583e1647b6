// What the storyboard pages share: aspect ratios, walking the shots in order, drawing a shot (its
// layers with their transform and opacity, its strokes with freehand.js) on a canvas, the save
// indicator, and new ids for scenes, shots, layers and strokes.

import { el, icon } from '../core/ui.js';
import { drawStroke } from './freehand.js';
import { errorText, formatNumber, has, t } from '../core/i18n.js';
import { newId, SAVE_TEXT } from './connection.js';

export { newId };

export const ASPECT_RATIOS = ['16:9', '4:3', '2.39:1', '1.85:1', '1:1', '9:16'];

/** Width over height of "16:9", "2.39:1"… (16/9 for anything unreadable). */
export function aspectValue(ratio) {
  const [w, h] = String(ratio || '16:9').split(':').map(Number);
  return w > 0 && h > 0 ? w / h : 16 / 9;
}

/** Every shot of the project in order, with its scene: [{shot, scene, sceneIndex, index}]. */
export function allShots(storyboard) {
  const out = [];
  (storyboard && storyboard.scenes || []).forEach((scene, sceneIndex) => {
    scene.shots.forEach((shot, index) => out.push({ shot, scene, sceneIndex, index }));
  });
  return out;
}

/** {shot, scene, sceneIndex, index, position} of a shot id, or null. */
export function locateShot(storyboard, shotId) {
  const list = allShots(storyboard);
  const position = list.findIndex((entry) => entry.shot.id === shotId);
  return position < 0 ? null : { ...list[position], position, total: list.length };
}

/** The shots `before` before and `after` after a shot, through the whole project (nearest first). */
export function neighbourShots(storyboard, shotId, before, after) {
  const list = allShots(storyboard);
  const at = list.findIndex((entry) => entry.shot.id === shotId);
  if (at < 0) return { previous: [], next: [] };
  const previous = [];
  for (let i = 1; i <= before && at - i >= 0; i += 1) previous.push(list[at - i].shot);
  const next = [];
  for (let i = 1; i <= after && at + i < list.length; i += 1) next.push(list[at + i].shot);
  return { previous, next };
}

/** An empty layer, and an empty shot with one layer (the server numbers the shot). */
export function emptyLayer(name = t('storyboard.layer-n', { n: 1 })) {
  return {
    id: newId('l'), name, visible: true, locked: false, opacity: 1, group: null,
    transform: { x: 0, y: 0, scale: 1, rotation: 0 }, strokes: [],
  };
}

export function emptyShot(background = '#ffffff') {
  return {
    id: newId('s'), number: '', duration: 3, dialogue: '', action: '', notes: '', background,
    layers: [emptyLayer()],
  };
}

const IDENTITY = { x: 0, y: 0, scale: 1, rotation: 0 };

/**
 * Sets ctx so that drawing in a w×h box draws through a layer's transform: offsets in shot units
 * (fractions of the width and the height), scale and rotation about the shot's centre, in the
 * shot's own proportions (a quarter turn of a 16:9 shot stays a quarter turn).
 */
export function applyLayerTransform(ctx, transform, w, h) {
  const t = transform || IDENTITY;
  ctx.translate(w / 2 + (t.x || 0) * w, h / 2 + (t.y || 0) * h);
  if (t.rotation) ctx.rotate(t.rotation);
  const s = t.scale || 1;
  if (s !== 1) ctx.scale(s, s);
  ctx.translate(-w / 2, -h / 2);
}

/** A point of the shot through a layer's transform (normalised in, normalised out; aspect: w/h). */
export function transformPoint(point, transform, aspect) {
  const t = transform || IDENTITY;
  const s = t.scale || 1;
  const c = Math.cos(t.rotation || 0);
  const n = Math.sin(t.rotation || 0);
  const dx = (point[0] - 0.5) * aspect;
  const dy = point[1] - 0.5;
  const x = (dx * c - dy * n) * s / aspect + 0.5 + (t.x || 0);
  const y = (dx * n + dy * c) * s + 0.5 + (t.y || 0);
  return [x, y];
}

/** The inverse: a point on the shot to the layer's own coordinates. */
export function untransformPoint(point, transform, aspect) {
  const t = transform || IDENTITY;
  const s = t.scale || 1;
  const c = Math.cos(-(t.rotation || 0));
  const n = Math.sin(-(t.rotation || 0));
  const dx = (point[0] - 0.5 - (t.x || 0)) * aspect / s;
  const dy = (point[1] - 0.5 - (t.y || 0)) / s;
  return [(dx * c - dy * n) / aspect + 0.5, dx * n + dy * c + 0.5];
}

export function isIdentity(transform) {
  const t = transform || IDENTITY;
  return !t.x && !t.y && (t.scale || 1) === 1 && !t.rotation;
}

/** Draws strokes into ctx (a w×h box), safely: one bad stroke does not stop the others. */
export function drawStrokes(ctx, strokes, w, h) {
  for (const stroke of strokes) {
    try {
      drawStroke(ctx, stroke, { width: w, height: h });
    } catch (_) {
      // A stroke the outline cannot make (too few points): nothing to draw.
    }
  }
}

/** Draws one layer into ctx (already cleared or composed onto), with its transform, not its opacity. */
export function drawLayer(ctx, layer, w, h, skip = null) {
  ctx.save();
  applyLayerTransform(ctx, layer.transform, w, h);
  drawStrokes(ctx, skip ? layer.strokes.filter((s) => !skip.has(s.id)) : layer.strokes, w, h);
  ctx.restore();
}

const scratch = { canvas: null };

function scratchCanvas(w, h) {
  if (!scratch.canvas) scratch.canvas = document.createElement('canvas');
  const canvas = scratch.canvas;
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return { canvas, ctx };
}

/**
 * Draws a whole shot (background, then each visible layer with its transform and opacity) into
 * a canvas of its own size: the thumbnails of the project page.
 */
export function drawShot(canvas, shot, { background = true } = {}) {
  const w = canvas.width;
  const h = canvas.height;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  if (background) {
    ctx.fillStyle = shot.background || '#ffffff';
    ctx.fillRect(0, 0, w, h);
  }
  for (const layer of shot.layers || []) {
    if (!layer.visible || !layer.strokes.length) continue;
    if ((layer.opacity ?? 1) >= 1) {
      drawLayer(ctx, layer, w, h);
    } else {
      const s = scratchCanvas(w, h);
      drawLayer(s.ctx, layer, w, h);
      ctx.globalAlpha = layer.opacity;
      ctx.drawImage(s.canvas, 0, 0);
      ctx.globalAlpha = 1;
    }
  }
}

/** A shot's strokes, all layers: how many. */
export function strokeCount(shot) {
  return (shot.layers || []).reduce((n, layer) => n + layer.strokes.length, 0);
}

/** "2 s", "1.5 s". */
export function durationText(seconds) {
  const n = Math.round(Number(seconds || 0) * 10) / 10;
  return t('storyboard.seconds', { seconds: formatNumber(n) });
}

/**
 * What to tell a person about a refused edit or a failed request: the storyboard's message for
 * its code (`storyboard.error.<code>`, the model's and the server's codes), else the shared one.
 */
export function storyErrorText(error) {
  const code = error && error.code;
  if (code && has('storyboard.error.' + code)) return t('storyboard.error.' + code);
  return errorText(error);
}

/** The save indicator: an element whose text and data-state follow a StoryboardConnection. */
export function saveIndicator() {
  const text = el('span', { class: 'save-text', text: SAVE_TEXT.connecting });
  const node = el('span', {
    class: 'save-state', attrs: { id: 'save-state', role: 'status', 'aria-live': 'polite', 'data-state': 'connecting' },
  }, [el('span', { class: 'save-dot', attrs: { 'aria-hidden': 'true' } }), text]);
  return {
    node,
    set(state) {
      node.dataset.state = state;
      text.textContent = SAVE_TEXT[state] || state;
    },
  };
}

/** The aspect ratio chooser's options. */
export function aspectOptions(selected) {
  return ASPECT_RATIOS.map((ratio) => el('option', { text: ratio, attrs: { value: ratio, selected: ratio === selected } }));
}

export { icon };
