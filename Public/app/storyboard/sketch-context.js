// The shot editor's shared ground: the page's state, its canvas and renderer, the document being
// edited, and the few things every part of the editor does (find the shot and layer in hand, make
// an edit, say something over the canvas). The entry module (sketch.js) fills in `hooks`.

import { saveIndicator, locateShot } from './common.js';
import { SketchRenderer } from './renderer.js';

export const params = new URLSearchParams(location.search);
export const projectId = params.get('id');
export const $ = (id) => document.getElementById(id);

export const DEFAULT_WIDTH = { pen: 0.004, marker: 0.02, pencil: 0.002, eraser: 0.02, split: 0.02 };
export const RULER_SNAP_PX = 30;
export const RULER_BAND_PX = 22;
export const HANDLE_PX = 14;
export const LIVE_STALE_MS = 3000;
export const CURSOR_STALE_MS = 15000;

export const stage = $('stage');
export const canvas = $('sketch-canvas');
export const renderer = new SketchRenderer(canvas, $('sketch-overlay'));
export const save = saveIndicator();
$('save-slot').replaceWith(save.node);

const stored = (() => {
  try {
    return JSON.parse(localStorage.getItem('podium.sketch') || '{}');
  } catch (_) {
    return {};
  }
})();

export const state = {
  record: null,
  doc: null,
  author: 'me',
  shotId: params.get('shot'),
  layerId: null,
  tool: 'pen',
  color: stored.color || '#111111',
  recent: Array.isArray(stored.recent) ? stored.recent.slice(0, 5) : [],
  widths: { ...DEFAULT_WIDTH, ...(stored.widths || {}) },
  onion: { before: stored.onionBefore ?? 0, after: stored.onionAfter ?? 0, opacity: stored.onionOpacity ?? 0.35 },
  ruler: null, // {x, y, angle} in shot coordinates, while shown
  selection: null, // {layer, ids}
  action: null,
  pointers: new Map(),
  space: false,
  live: new Map(), // editor -> {layer, stroke, at, shot}
  cursors: new Map(), // editor -> {x, y, shot, at}
  hidden: new Map(), // layer id -> Set of stroke ids not shown (being erased or moved)
  transforms: {}, // layer id -> transform previewed
  localLive: null, // {layer, strokes} ours, being drawn or moved
};

export function remember() {
  try {
    localStorage.setItem('podium.sketch', JSON.stringify({
      color: state.color, recent: state.recent, widths: state.widths,
      onionBefore: state.onion.before, onionAfter: state.onion.after, onionOpacity: state.onion.opacity,
    }));
  } catch (_) {
    // private mode: not kept
  }
}

/** What the entry module does for the parts: redraw the panels, compose the canvas, change shot. */
export const hooks = {
  refresh: () => {},
  composeFrame: () => {},
  goToShot: () => {},
};

// ---- the model ----

export function view() {
  return state.doc && state.doc.view;
}

export function currentShot() {
  const v = view();
  const found = v && state.shotId ? locateShot(v, state.shotId) : null;
  return found ? found.shot : null;
}

export function currentLayer() {
  const shot = currentShot();
  if (!shot) return null;
  return shot.layers.find((l) => l.id === state.layerId) || shot.layers[shot.layers.length - 1] || null;
}

export function edit(e) {
  return state.doc ? state.doc.edit(e) : null;
}

let messageTimer = 0;

export function showMessage(text) {
  const node = $('message');
  node.textContent = text;
  node.hidden = false;
  clearTimeout(messageTimer);
}

/** A short note over the canvas. */
export function flash(text) {
  showMessage(text);
  messageTimer = setTimeout(() => { $('message').hidden = true; }, 2500);
}
