// The shot editor (/sketch.html?id=…&shot=…): a canvas of the project's aspect ratio fitted to the
// window; pen, marker, pencil, eraser (whole strokes, or partial: splits strokes), lasso (move,
// scale, rotate, duplicate, delete), ruler (strokes started on it run straight along it); colours,
// recent colours, widths; undo / redo of one's own edits; layers (layers.js); canvas pan, zoom and
// rotation (keys, wheel, two fingers); onion skin; the shot's fields; previous / next shot; others'
// cursors and strokes as they draw them.
//
// State for tests: body[data-ready]; #stage[data-tool][data-layer][data-selected][data-live]
// [data-shot]; #sketch-canvas (the composed shot: getImageData), #stage[data-view] ("panX,panY,zoom,rot").

import { api, currentUser, goToLogin } from '../api.js';
import { el, icon, iconButton, hydrateIcons, toast, isTyping, dialogOpen, modalDialog } from '../ui.js';
import { StoryDoc, userId } from './doc.js';
import {
  aspectValue, locateShot, neighbourShots, allShots, saveIndicator, newId, transformPoint, untransformPoint, durationText,
} from './common.js';
import {
  strokeHit, lassoSelect, densify, bounds, transformStrokes, eraseFrom, snapToRuler, rulerDistance, capPoints, clampWidth, round, movePoint,
} from './geometry.js';
import { SketchRenderer } from './renderer.js';
import { simplify } from './freehand.js';
import { LayersPanel } from './layers.js';

const params = new URLSearchParams(location.search);
const projectId = params.get('id');
const $ = (id) => document.getElementById(id);

export const PALETTE = ['#111111', '#ffffff', '#e53935', '#fb8c00', '#fdd835', '#43a047', '#1e88e5', '#8e24aa'];
const TOOLS = [
  { tool: 'pen', label: 'Pen', key: 'B', icon: 'pen' },
  { tool: 'marker', label: 'Marker', key: 'M', icon: 'highlighter' },
  { tool: 'pencil', label: 'Pencil', key: 'P', icon: 'edit' },
  { tool: 'eraser', label: 'Eraser (whole strokes)', key: 'E', icon: 'eraser' },
  { tool: 'split', label: 'Partial eraser (splits strokes)', key: 'Shift+E', icon: 'x' },
  { tool: 'lasso', label: 'Lasso', key: 'L', icon: 'square' },
  { tool: 'ruler', label: 'Ruler', key: 'U', icon: 'minus' },
  { tool: 'transform', label: 'Transform layer', key: 'T', icon: 'move' },
  { tool: 'view', label: 'View only: drag to pan, swipe for the next shot', key: 'H', icon: 'hand' },
];
const DEFAULT_WIDTH = { pen: 0.004, marker: 0.02, pencil: 0.002, eraser: 0.02, split: 0.02 };
const RULER_SNAP_PX = 30;
const RULER_BAND_PX = 22;
const HANDLE_PX = 14;
const LIVE_STALE_MS = 3000;
const CURSOR_STALE_MS = 15000;

const stage = $('stage');
const canvas = $('sketch-canvas');
const renderer = new SketchRenderer(canvas, $('sketch-overlay'));
const save = saveIndicator();
$('save-slot').replaceWith(save.node);
hydrateIcons();

const stored = (() => {
  try {
    return JSON.parse(localStorage.getItem('podium.sketch') || '{}');
  } catch (_) {
    return {};
  }
})();

const state = {
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

function remember() {
  try {
    localStorage.setItem('podium.sketch', JSON.stringify({
      color: state.color, recent: state.recent, widths: state.widths,
      onionBefore: state.onion.before, onionAfter: state.onion.after, onionOpacity: state.onion.opacity,
    }));
  } catch (_) {
    // private mode: not kept
  }
}

// ---- the model ----

function view() {
  return state.doc && state.doc.view;
}

function currentShot() {
  const v = view();
  const found = v && state.shotId ? locateShot(v, state.shotId) : null;
  return found ? found.shot : null;
}

function currentLayer() {
  const shot = currentShot();
  if (!shot) return null;
  return shot.layers.find((l) => l.id === state.layerId) || shot.layers[shot.layers.length - 1] || null;
}

function edit(e) {
  return state.doc ? state.doc.edit(e) : null;
}

// ---- start ----

async function start() {
  if (!projectId) {
    showMessage('No storyboard was named in the address.');
    return;
  }
  let user;
  try {
    user = await currentUser();
  } catch (error) {
    showMessage(error.message);
    return;
  }
  if (!user) {
    goToLogin();
    return;
  }
  state.author = userId(user);
  $('back').href = '/storyboard.html?id=' + encodeURIComponent(projectId) + (state.shotId ? '&shot=' + encodeURIComponent(state.shotId) : '');
  try {
    state.record = await api('/api/v1/storyboards/' + encodeURIComponent(projectId));
  } catch (error) {
    showMessage(error.status === 404 ? 'This storyboard does not exist, or is not yours.' : error.message);
    return;
  }
  renderer.setAspect(state.record.aspectRatio);
  renderer.resize();
  const doc = new StoryDoc(projectId, { author: state.author });
  state.doc = doc;
  doc.addEventListener('save', (event) => save.set(event.detail.state));
  doc.addEventListener('ready', () => {
    if (!state.shotId || !currentShot()) {
      const first = allShots(view())[0];
      state.shotId = first ? first.shot.id : null;
    }
    document.body.dataset.ready = 'true';
  });
  doc.addEventListener('change', (event) => onChange(event.detail));
  doc.addEventListener('editors', (event) => renderEditors(event.detail.editors));
  doc.addEventListener('drawing', (event) => onDrawing(event.detail));
  doc.addEventListener('cursor', (event) => onCursor(event.detail));
  doc.addEventListener('dropped', (event) => toast('A change was not saved: ' + event.detail.message, { kind: 'error' }));
  doc.addEventListener('refused', (event) => flash(event.detail.kind === 'redo' ? 'Nothing to redo.' : 'Nothing of yours to undo.'));
  doc.addEventListener('fatal', (event) => showMessage(event.detail.message || 'Cannot open this storyboard.'));
  doc.connect();
}

let messageTimer = 0;

function showMessage(text) {
  const node = $('message');
  node.textContent = text;
  node.hidden = false;
  clearTimeout(messageTimer);
}

/** A short note over the canvas. */
function flash(text) {
  showMessage(text);
  messageTimer = setTimeout(() => { $('message').hidden = true; }, 2500);
}

function onChange({ source, edit: e, frame }) {
  const v = view();
  if (!v) return;
  if (state.shotId && !locateShot(v, state.shotId)) {
    // Our shot was deleted (by someone else, or undone): go to the one now in its place.
    const list = allShots(v);
    const near = list[Math.min(state.position || 0, list.length - 1)];
    flash('This shot was deleted.');
    state.shotId = near ? near.shot.id : null;
    state.selection = null;
  }
  // A committed stroke of someone else replaces their stroke in progress.
  if (source === 'server' && e && (e.op === 'addStrokes' || e.op === 'replaceStrokes')) {
    const ids = new Set((e.strokes || e.add || []).map((s) => s.id));
    for (const [editor, live] of state.live) if (ids.has(live.stroke.id)) state.live.delete(editor);
  }
  if (state.selection) {
    const shot = currentShot();
    const layer = shot && shot.layers.find((l) => l.id === state.selection.layer);
    const ids = layer ? state.selection.ids.filter((id) => layer.strokes.some((s) => s.id === id)) : [];
    state.selection = ids.length ? { ...state.selection, ids } : null;
  }
  void frame;
  refresh();
}

// ---- rendering ----

function refresh() {
  const v = view();
  const shot = currentShot();
  if (!v || !shot) {
    renderer.frame = null;
    renderer.invalidate();
    if (v) $('shot-title').textContent = 'No shot';
    return;
  }
  if (!shot.layers.some((l) => l.id === state.layerId)) state.layerId = shot.layers.length ? shot.layers[shot.layers.length - 1].id : null;
  const found = locateShot(v, shot.id);
  state.position = found.position;
  $('shot-title').textContent = 'Shot ' + (shot.number || '') + ' · ' + durationText(shot.duration);
  $('shot-subtitle').textContent = 'Scene ' + (found.sceneIndex + 1) + ': ' + (found.scene.title || 'Untitled') + ' · ' + (found.position + 1) + ' of ' + found.total;
  document.title = 'Shot ' + (shot.number || '') + ' — ' + (state.record ? state.record.title : 'Storyboard') + ' — Podium';
  $('prev-shot').disabled = found.position === 0;
  $('next-shot').disabled = found.position === found.total - 1;
  stage.dataset.shot = shot.id;
  stage.dataset.layer = state.layerId || '';
  stage.dataset.strokes = String(shot.layers.reduce((n, l) => n + l.strokes.length, 0));
  stage.dataset.selected = String(state.selection ? state.selection.ids.length : 0);
  layers.render(shot, state.layerId);
  renderShotFields(shot);
  renderSelectionTools();
  const layerIds = new Set();
  const shotIds = new Set();
  for (const { shot: s } of allShots(v)) {
    shotIds.add(s.id);
    for (const l of s.layers) layerIds.add(l.id);
  }
  renderer.prune(layerIds, shotIds);
  composeFrame();
}

function composeFrame() {
  const shot = currentShot();
  if (!shot) return;
  const onion = state.onion.before || state.onion.after
    ? { ...neighbourShots(view(), shot.id, state.onion.before, state.onion.after), opacity: state.onion.opacity }
    : null;
  const live = [];
  const now = performance.now();
  for (const [editor, entry] of state.live) {
    if (now - entry.at > LIVE_STALE_MS) state.live.delete(editor);
    else if (entry.shot === shot.id) live.push({ layer: entry.layer, strokes: [entry.stroke], drawing: true });
  }
  stage.dataset.live = String(live.length);
  if (state.localLive) live.push(state.localLive);
  renderer.frame = { shot, onion, live, hidden: state.hidden, transforms: state.transforms };
  stage.dataset.onion = String(onion ? onion.previous.length + onion.next.length : 0);
  renderer.invalidate();
}

renderer.onFrame = () => {
  const v = renderer.view;
  stage.dataset.view = [Math.round(v.panX), Math.round(v.panY), v.zoom.toFixed(2), v.rotation.toFixed(3)].join(',');
  $('zoom-level').textContent = Math.round(v.zoom * 100) + '%';
  const a = renderer.toStage(0, 0);
  const b = renderer.toStage(1, 1);
  stage.dataset.shotRect = [a[0], a[1], b[0] - a[0], b[1] - a[1]].map((n) => n.toFixed(1)).join(',');
  placeCursors();
};

// ---- the tools' marks on the overlay ----

function layerToStage(layer, p) {
  const q = transformPoint(p, layer ? (state.transforms[layer.id] || layer.transform) : null, renderer.aspect);
  return renderer.toStage(q[0], q[1]);
}

function rulerEnds(ruler) {
  const half = 0.45;
  const dx = half * Math.cos(ruler.angle);
  const dy = half * renderer.aspect * Math.sin(ruler.angle);
  return [[ruler.x - dx, ruler.y - dy], [ruler.x + dx, ruler.y + dy]];
}

renderer.drawOverlay = (o) => {
  const a = state.action;
  if (state.ruler) {
    const [e1, e2] = rulerEnds(state.ruler).map((p) => renderer.toStage(p[0], p[1]));
    const ang = Math.atan2(e2[1] - e1[1], e2[0] - e1[0]);
    const len = Math.hypot(e2[0] - e1[0], e2[1] - e1[1]);
    o.save();
    o.translate(e1[0], e1[1]);
    o.rotate(ang);
    o.fillStyle = 'rgba(148, 163, 184, 0.35)';
    o.strokeStyle = 'rgba(30, 41, 59, 0.8)';
    o.lineWidth = 1;
    o.fillRect(0, -RULER_BAND_PX, len, RULER_BAND_PX * 2);
    o.strokeRect(0, -RULER_BAND_PX, len, RULER_BAND_PX * 2);
    o.beginPath();
    for (let x = 0; x <= len; x += 12) {
      o.moveTo(x, -RULER_BAND_PX);
      o.lineTo(x, -RULER_BAND_PX + (x % 60 === 0 ? 12 : 6));
    }
    o.stroke();
    o.strokeStyle = '#4f46e5';
    o.lineWidth = 2;
    o.beginPath();
    o.moveTo(0, 0);
    o.lineTo(len, 0);
    o.stroke();
    o.fillStyle = '#4f46e5';
    for (const x of [0, len]) {
      o.beginPath();
      o.arc(x, 0, 9, 0, Math.PI * 2);
      o.fill();
    }
    o.restore();
  }
  if (a && a.kind === 'lasso' && a.path.length > 1) {
    const layer = currentLayer();
    o.save();
    o.setLineDash([6, 4]);
    o.strokeStyle = '#4f46e5';
    o.lineWidth = 1.5;
    o.beginPath();
    a.path.forEach((p, i) => {
      const s = layerToStage(layer, p);
      if (i) o.lineTo(s[0], s[1]);
      else o.moveTo(s[0], s[1]);
    });
    o.closePath();
    o.stroke();
    o.restore();
  }
  if (a && a.kind === 'split' && a.path.length) {
    const layer = currentLayer();
    const ppu = renderer.pixelsPerUnit();
    o.save();
    o.strokeStyle = 'rgba(229, 57, 53, 0.45)';
    o.lineCap = 'round';
    o.lineJoin = 'round';
    o.lineWidth = Math.max(4, state.widths.split * renderer.aspect * ppu);
    o.beginPath();
    a.path.forEach((p, i) => {
      const s = layerToStage(layer, p);
      if (i) o.lineTo(s[0], s[1]);
      else o.moveTo(s[0], s[1]);
    });
    o.stroke();
    o.restore();
  }
  const box = selectionBox();
  if (box) {
    const layer = currentLayer();
    const corners = box.corners.map((p) => layerToStage(layer, p));
    o.save();
    o.strokeStyle = '#4f46e5';
    o.lineWidth = 1.5;
    o.setLineDash([5, 4]);
    o.beginPath();
    corners.forEach((s, i) => (i ? o.lineTo(s[0], s[1]) : o.moveTo(s[0], s[1])));
    o.closePath();
    o.stroke();
    o.setLineDash([]);
    o.fillStyle = '#ffffff';
    for (const s of corners) {
      o.fillRect(s[0] - 6, s[1] - 6, 12, 12);
      o.strokeRect(s[0] - 6, s[1] - 6, 12, 12);
    }
    const knob = layerToStage(layer, box.knob);
    const topMid = layerToStage(layer, box.topMid);
    o.beginPath();
    o.moveTo(topMid[0], topMid[1]);
    o.lineTo(knob[0], knob[1]);
    o.stroke();
    o.beginPath();
    o.arc(knob[0], knob[1], 7, 0, Math.PI * 2);
    o.fill();
    o.stroke();
    o.restore();
  }
};

// ---- the selection (lasso) ----

function selectedStrokes() {
  const shot = currentShot();
  if (!shot || !state.selection) return [];
  const layer = shot.layers.find((l) => l.id === state.selection.layer);
  if (!layer) return [];
  const ids = new Set(state.selection.ids);
  return layer.strokes.filter((s) => ids.has(s.id));
}

/** The selection's box in layer coordinates (moved as it is being moved): corners, centre, knob. */
function selectionBox() {
  const strokes = selectedStrokes();
  if (!strokes.length || !state.selection || state.selection.layer !== (currentLayer() || {}).id) return null;
  const b = bounds(strokes, renderer.aspect);
  const c = [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
  const move = state.action && state.action.kind === 'selection' ? state.action.move : { dx: 0, dy: 0, scale: 1, rotation: 0 };
  const raw = [[b.x0, b.y0], [b.x1, b.y0], [b.x1, b.y1], [b.x0, b.y1]];
  const knobOffset = 28 / renderer.pixelsPerUnit();
  const m = (p) => movePoint(p, c, move, renderer.aspect);
  return {
    corners: raw.map(m), center: m(c), rawCenter: c, box: b,
    topMid: m([c[0], b.y0]), knob: m([c[0], b.y0 - knobOffset]),
  };
}

function renderSelectionTools() {
  const bar = $('selection-tools');
  const count = state.selection ? state.selection.ids.length : 0;
  bar.hidden = !count;
  if (!count) return;
  if (bar.childElementCount) return;
  bar.append(
    iconButton('copy', 'Duplicate', { cls: 'btn btn-sm', attrs: { 'data-action': 'duplicate-selection', 'aria-keyshortcuts': 'Control+D' }, on: { click: duplicateSelection } }),
    iconButton('trash', 'Delete', { cls: 'btn btn-sm', attrs: { 'data-action': 'delete-selection', 'aria-keyshortcuts': 'Delete' }, on: { click: deleteSelection } }),
    iconButton('x', 'Deselect', { cls: 'btn btn-sm', attrs: { 'data-action': 'deselect', 'aria-keyshortcuts': 'Escape' }, on: { click: () => { state.selection = null; refresh(); } } }),
  );
}

function deleteSelection() {
  const strokes = selectedStrokes();
  if (!strokes.length) return;
  edit({ op: 'removeStrokes', shot: state.shotId, layer: state.selection.layer, strokes: strokes.map((s) => s.id) });
  state.selection = null;
  refresh();
}

function duplicateSelection() {
  const strokes = selectedStrokes();
  if (!strokes.length) return;
  const b = bounds(strokes, renderer.aspect);
  const copies = transformStrokes(strokes, [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2], { dx: 0.02, dy: 0.02 * renderer.aspect }, renderer.aspect, state.author);
  const layer = state.selection.layer;
  if (edit({ op: 'addStrokes', shot: state.shotId, layer, strokes: copies })) {
    state.selection = { layer, ids: copies.map((s) => s.id) };
    refresh();
  }
}

// ---- pointer input ----

function stagePoint(event) {
  const rect = canvas.getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

function shotPoint(event) {
  const [x, y] = stagePoint(event);
  return renderer.toShot(x, y);
}

function layerPoint(event, layer) {
  return untransformPoint(shotPoint(event), layer ? layer.transform : null, renderer.aspect);
}

function pressureOf(event) {
  if (event.pointerType === 'mouse' || !(event.pressure > 0)) return 0.5;
  return Math.round(event.pressure * 1000) / 1000;
}

/** The layer strokes go to, or null (with the reason said) when it takes none. */
function drawableLayer() {
  const layer = currentLayer();
  if (!layer) return null;
  if (layer.locked) {
    flash('“' + layer.name + '” is locked.');
    return null;
  }
  if (!layer.visible) {
    flash('“' + layer.name + '” is hidden.');
    return null;
  }
  return layer;
}

canvas.addEventListener('pointerdown', (event) => {
  if (!currentShot()) return;
  canvas.setPointerCapture(event.pointerId);
  state.pointers.set(event.pointerId, stagePoint(event));
  if (state.pointers.size === 2) {
    cancelAction();
    startGesture();
    return;
  }
  if (state.pointers.size > 2) return;
  event.preventDefault();
  if (event.button === 1 || state.space || state.tool === 'view') {
    startPan(event, state.tool === 'view');
    return;
  }
  if (event.button !== 0) return;
  const tool = state.tool;
  if (tool === 'transform') startLayerMove(event);
  else if (tool === 'pen' || tool === 'marker' || tool === 'pencil') startStroke(event);
  else if (tool === 'eraser' && event.altKey) startSplit(event);
  else if (tool === 'eraser') startErase(event);
  else if (tool === 'split') startSplit(event);
  else if (tool === 'lasso') startLasso(event);
  else if (tool === 'ruler') startRuler(event);
});

canvas.addEventListener('pointermove', (event) => {
  const shot = currentShot();
  if (shot && state.doc && event.pointerType !== 'touch') {
    const [x, y] = shotPoint(event);
    if (x >= -1 && x <= 2 && y >= -1 && y <= 2) state.doc.conn.sendCursor(shot.id, round(x), round(y));
  }
  if (!state.pointers.has(event.pointerId)) return;
  state.pointers.set(event.pointerId, stagePoint(event));
  const a = state.action;
  if (!a) return;
  if (a.kind === 'gesture') {
    a.move();
    return;
  }
  if (a.pointerId !== event.pointerId) return;
  const events = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
  a.move(event, events.length ? events : [event]);
});

function endPointer(event, cancelled) {
  if (!state.pointers.has(event.pointerId)) return;
  state.pointers.delete(event.pointerId);
  const a = state.action;
  if (!a) return;
  if (a.kind === 'gesture') {
    if (state.pointers.size < 2) {
      a.end();
      state.action = null;
    }
    return;
  }
  if (a.pointerId !== event.pointerId) return;
  state.action = null;
  if (cancelled) a.cancel();
  else a.end(event);
  composeFrame();
}

canvas.addEventListener('pointerup', (event) => endPointer(event, false));
canvas.addEventListener('pointercancel', (event) => endPointer(event, true));
canvas.addEventListener('lostpointercapture', (event) => endPointer(event, false));

function cancelAction() {
  const a = state.action;
  state.action = null;
  if (a && a.cancel) a.cancel();
  composeFrame();
}

// Pens, marker, pencil: points as the pointer moves, sent as `drawing` while drawn, an addStrokes on release.
function startStroke(event) {
  const layer = drawableLayer();
  if (!layer) return;
  const shotId = state.shotId;
  const first = shotPoint(event);
  const ppu = renderer.pixelsPerUnit();
  const snap = state.ruler && rulerDistance(first, state.ruler, renderer.aspect) * ppu < RULER_SNAP_PX;
  const stroke = { id: newId('k'), author: state.author, tool: state.tool, color: state.color, width: clampWidth(state.widths[state.tool]), points: [] };
  let lastStage = null;
  const add = (e) => {
    let p = shotPoint(e);
    if (snap) p = snapToRuler(p, state.ruler, renderer.aspect);
    const sp = renderer.toStage(p[0], p[1]);
    if (lastStage && Math.hypot(sp[0] - lastStage[0], sp[1] - lastStage[1]) < 0.75) return;
    lastStage = sp;
    const q = untransformPoint(p, layer.transform, renderer.aspect);
    stroke.points.push([round(clampCoord(q[0])), round(clampCoord(q[1])), pressureOf(e)]);
  };
  add(event);
  state.localLive = { layer: layer.id, strokes: [stroke], drawing: true };
  composeFrame();
  state.action = {
    kind: 'stroke', pointerId: event.pointerId,
    move(e, events) {
      for (const ev of events) add(ev);
      if (stroke.points.length > 1 && state.doc) state.doc.conn.sendDrawing(shotId, layer.id, { ...stroke, points: capPoints(stroke.points) });
      composeFrame();
    },
    end() {
      state.localLive = null;
      if (stroke.points.length) {
        if (stroke.points.length === 1) stroke.points.push([...stroke.points[0]]);
        stroke.points = capPoints(simplify(stroke.points, 0.0002));
        edit({ op: 'addStrokes', shot: shotId, layer: layer.id, strokes: [stroke] });
      }
      // After the edit: the others see the committed stroke before this one goes.
      if (state.doc) state.doc.conn.sendDrawing(shotId, layer.id, null);
    },
    cancel() {
      state.localLive = null;
      if (state.doc) state.doc.conn.sendDrawing(shotId, layer.id, null);
    },
  };
}

function eraserRadius(tool) {
  return (state.widths[tool] * renderer.aspect) / 2;
}

// Eraser: whole strokes touched, hidden at once, removed on release.
function startErase(event) {
  const layer = drawableLayer();
  if (!layer) return;
  const hits = new Set();
  state.hidden = new Map([[layer.id, hits]]);
  const r = eraserRadius('eraser') / (layer.transform ? layer.transform.scale || 1 : 1);
  let last = null;
  const test = (e) => {
    const p = layerPoint(e, layer);
    for (const q of last ? densify(last, p, r, renderer.aspect) : [p]) {
      for (const s of layer.strokes) if (!hits.has(s.id) && strokeHit(s, q, r, renderer.aspect)) hits.add(s.id);
    }
    last = p;
  };
  test(event);
  composeFrame();
  state.action = {
    kind: 'erase', pointerId: event.pointerId,
    move(e, events) {
      const before = hits.size;
      for (const ev of events) test(ev);
      if (hits.size !== before) {
        state.hidden = new Map([[layer.id, new Set(hits)]]);
        composeFrame();
      }
    },
    end() {
      state.hidden = new Map();
      if (hits.size) edit({ op: 'removeStrokes', shot: state.shotId, layer: layer.id, strokes: [...hits] });
    },
    cancel() {
      state.hidden = new Map();
    },
  };
}

// Partial eraser (or Alt with the eraser): the eraser's path cuts the strokes it crosses.
function startSplit(event) {
  const layer = drawableLayer();
  if (!layer) return;
  const path = [layerPoint(event, layer)];
  const r = eraserRadius('split') / (layer.transform ? layer.transform.scale || 1 : 1);
  state.action = {
    kind: 'split', pointerId: event.pointerId, path,
    move(e, events) {
      for (const ev of events) path.push(...densify(path[path.length - 1], layerPoint(ev, layer), r, renderer.aspect));
      renderer.invalidate();
    },
    end() {
      for (const stroke of layer.strokes) {
        const pieces = eraseFrom(stroke, path, r, renderer.aspect);
        if (pieces === null) continue;
        if (pieces.length) edit({ op: 'replaceStrokes', shot: state.shotId, layer: layer.id, remove: [stroke.id], add: pieces });
        else edit({ op: 'removeStrokes', shot: state.shotId, layer: layer.id, strokes: [stroke.id] });
      }
      renderer.invalidate();
    },
    cancel() {
      renderer.invalidate();
    },
  };
  renderer.invalidate();
}

// Lasso: a loop selects strokes of the current layer; on a selection, drag to move, a corner to
// scale, the knob to rotate.
function startLasso(event) {
  const layer = currentLayer();
  if (!layer) return;
  const box = selectionBox();
  if (box) {
    const here = stagePoint(event);
    const near = (p) => {
      const s = layerToStage(layer, p);
      return Math.hypot(s[0] - here[0], s[1] - here[1]) <= HANDLE_PX;
    };
    const p = layerPoint(event, layer);
    let mode = null;
    if (near(box.knob)) mode = 'rotate';
    else if (box.corners.some(near)) mode = 'scale';
    else if (p[0] >= box.box.x0 && p[0] <= box.box.x1 && p[1] >= box.box.y0 && p[1] <= box.box.y1) mode = 'move';
    if (mode) {
      if (layer.locked) {
        flash('“' + layer.name + '” is locked.');
        return;
      }
      startSelectionMove(event, layer, box, mode);
      return;
    }
  }
  state.selection = null;
  const path = [layerPoint(event, layer)];
  state.action = {
    kind: 'lasso', pointerId: event.pointerId, path,
    move(e, events) {
      for (const ev of events) path.push(layerPoint(ev, layer));
      renderer.invalidate();
    },
    end() {
      const picked = lassoSelect(layer.strokes, path);
      state.selection = picked.length ? { layer: layer.id, ids: picked.map((s) => s.id) } : null;
      refresh();
    },
    cancel() {
      renderer.invalidate();
    },
  };
  refresh();
}

function startSelectionMove(event, layer, box, mode) {
  const strokes = selectedStrokes();
  const c = box.rawCenter;
  const p0 = layerPoint(event, layer);
  const aspect = renderer.aspect;
  const angle = (p) => Math.atan2(p[1] - c[1], (p[0] - c[0]) * aspect);
  const dist = (p) => Math.hypot((p[0] - c[0]) * aspect, p[1] - c[1]);
  const move = { dx: 0, dy: 0, scale: 1, rotation: 0 };
  state.hidden = new Map([[layer.id, new Set(strokes.map((s) => s.id))]]);
  const preview = () => {
    state.localLive = { layer: layer.id, strokes: transformStrokes(strokes, c, move, aspect, state.author) };
    composeFrame();
  };
  preview();
  state.action = {
    kind: 'selection', pointerId: event.pointerId, move,
    move(e) {
      const p = layerPoint(e, layer);
      if (mode === 'move') {
        move.dx = p[0] - p0[0];
        move.dy = p[1] - p0[1];
      } else if (mode === 'scale') {
        move.scale = Math.min(20, Math.max(0.05, dist(p) / Math.max(1e-6, dist(p0))));
      } else {
        move.rotation = angle(p) - angle(p0);
      }
      preview();
    },
    end() {
      state.hidden = new Map();
      state.localLive = null;
      if (!move.dx && !move.dy && move.scale === 1 && !move.rotation) return;
      const moved = transformStrokes(strokes, c, move, aspect, state.author);
      if (edit({ op: 'replaceStrokes', shot: state.shotId, layer: layer.id, remove: strokes.map((s) => s.id), add: moved })) {
        state.selection = { layer: layer.id, ids: moved.map((s) => s.id) };
      }
      refresh();
    },
    cancel() {
      state.hidden = new Map();
      state.localLive = null;
    },
  };
}

// Ruler: drag it to move it, by an end to turn it.
function startRuler(event) {
  if (!state.ruler) state.ruler = { x: 0.5, y: 0.5, angle: 0 };
  const here = stagePoint(event);
  const ends = rulerEnds(state.ruler).map((p) => renderer.toStage(p[0], p[1]));
  const atEnd = ends.some((s) => Math.hypot(s[0] - here[0], s[1] - here[1]) <= 20);
  const p0 = shotPoint(event);
  const r0 = { ...state.ruler };
  const aspect = renderer.aspect;
  state.action = {
    kind: 'ruler', pointerId: event.pointerId,
    move(e) {
      const p = shotPoint(e);
      if (atEnd) {
        const a0 = Math.atan2(p0[1] - r0.y, (p0[0] - r0.x) * aspect);
        const a1 = Math.atan2(p[1] - r0.y, (p[0] - r0.x) * aspect);
        let angle = r0.angle + a1 - a0;
        if (e.shiftKey) angle = Math.round(angle / (Math.PI / 12)) * (Math.PI / 12);
        state.ruler = { ...r0, angle };
      } else {
        state.ruler = { ...r0, x: r0.x + p[0] - p0[0], y: r0.y + p[1] - p0[1] };
      }
      stage.dataset.ruler = [state.ruler.x, state.ruler.y, state.ruler.angle].map((n) => n.toFixed(3)).join(',');
      renderer.invalidate();
    },
    end() {},
    cancel() {},
  };
  renderer.invalidate();
}

// Transform layer: drag moves the layer's drawing; Shift turns it, Alt scales it (two fingers do both).
function startLayerMove(event) {
  const layer = currentLayer();
  if (!layer) return;
  if (layer.locked) {
    flash('“' + layer.name + '” is locked.');
    return;
  }
  const t0 = { x: 0, y: 0, scale: 1, rotation: 0, ...(layer.transform || {}) };
  const p0 = shotPoint(event);
  const aspect = renderer.aspect;
  const c = [0.5 + t0.x, 0.5 + t0.y];
  const angle = (p) => Math.atan2(p[1] - c[1], (p[0] - c[0]) * aspect);
  const dist = (p) => Math.hypot((p[0] - c[0]) * aspect, p[1] - c[1]);
  state.action = {
    kind: 'layer', pointerId: event.pointerId,
    move(e) {
      const p = shotPoint(e);
      const t = { ...t0 };
      if (e.shiftKey) t.rotation = t0.rotation + angle(p) - angle(p0);
      else if (e.altKey) t.scale = Math.min(20, Math.max(0.05, t0.scale * dist(p) / Math.max(1e-6, dist(p0))));
      else {
        t.x = t0.x + p[0] - p0[0];
        t.y = t0.y + p[1] - p0[1];
      }
      state.transforms = { [layer.id]: t };
      composeFrame();
    },
    end() {
      commitLayerTransform(layer);
    },
    cancel() {
      state.transforms = {};
    },
  };
}

const clampCoord = (v) => Math.min(2, Math.max(-1, v));

function roundTransform(t) {
  const turn = Math.atan2(Math.sin(t.rotation), Math.cos(t.rotation)); // within -π…π
  const offset = (v) => round(Math.min(10, Math.max(-10, v)));
  return { x: offset(t.x), y: offset(t.y), scale: Math.min(20, Math.max(0.05, round(t.scale))), rotation: round(turn) };
}

function commitLayerTransform(layer) {
  const t = state.transforms[layer.id];
  state.transforms = {};
  if (t) edit({ op: 'updateLayer', shot: state.shotId, layer: layer.id, transform: roundTransform(t) });
  composeFrame();
}

function startPan(event, swipe = false) {
  const start = stagePoint(event);
  const startedAt = performance.now();
  const v0 = { ...renderer.view };
  stage.classList.add('is-panning');
  state.action = {
    kind: 'pan', pointerId: event.pointerId,
    move(e) {
      const p = stagePoint(e);
      renderer.view.panX = v0.panX + p[0] - start[0];
      renderer.view.panY = v0.panY + p[1] - start[1];
      renderer.invalidate();
    },
    end(e) {
      stage.classList.remove('is-panning');
      // The view tool at the fitted size: a quick horizontal swipe is the next or previous shot.
      if (!swipe || !e || Math.abs(v0.zoom - 1) > 0.01) return;
      const p = stagePoint(e);
      const dx = p[0] - start[0];
      if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(p[1] - start[1]) && performance.now() - startedAt < 700) {
        renderer.view.panX = v0.panX;
        renderer.view.panY = v0.panY;
        goToShot(dx < 0 ? 1 : -1);
      }
    },
    cancel() {
      stage.classList.remove('is-panning');
    },
  };
}

// Two fingers: pan, pinch and twist the view (or, in transform-layer mode, the layer).
function startGesture() {
  const pts = () => [...state.pointers.values()].slice(0, 2);
  const measure = () => {
    const [a, b] = pts();
    return { c: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2], d: Math.hypot(b[0] - a[0], b[1] - a[1]) || 1, a: Math.atan2(b[1] - a[1], b[0] - a[0]) };
  };
  const m0 = measure();
  const layer = state.tool === 'transform' ? currentLayer() : null;
  if (layer && !layer.locked) {
    const t0 = { x: 0, y: 0, scale: 1, rotation: 0, ...(layer.transform || {}) };
    const s0 = renderer.toShot(m0.c[0], m0.c[1]);
    state.action = {
      kind: 'gesture',
      move() {
        const m = measure();
        const s = renderer.toShot(m.c[0], m.c[1]);
        state.transforms = { [layer.id]: {
          x: t0.x + s[0] - s0[0], y: t0.y + s[1] - s0[1],
          scale: Math.min(20, Math.max(0.05, t0.scale * m.d / m0.d)), rotation: t0.rotation + m.a - m0.a,
        } };
        composeFrame();
      },
      end() {
        commitLayerTransform(layer);
      },
      cancel() {
        state.transforms = {};
      },
    };
    return;
  }
  const v0 = { ...renderer.view };
  const anchor = renderer.toShot(m0.c[0], m0.c[1]);
  state.action = {
    kind: 'gesture',
    move() {
      const m = measure();
      renderer.view = { ...v0, zoom: Math.min(16, Math.max(0.2, v0.zoom * m.d / m0.d)), rotation: v0.rotation + m.a - m0.a };
      const q = renderer.toStage(anchor[0], anchor[1]);
      renderer.view.panX += m.c[0] - q[0];
      renderer.view.panY += m.c[1] - q[1];
      renderer.invalidate();
    },
    end() {},
    cancel() {},
  };
}

canvas.addEventListener('wheel', (event) => {
  event.preventDefault();
  const factor = Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015));
  renderer.setView({ zoom: renderer.view.zoom * factor }, stagePoint(event));
}, { passive: false });

// ---- others: cursors and strokes being drawn ----

function editorInfo(editor) {
  const list = state.doc ? state.doc.editors : [];
  return list.find((e) => String(e.editor) === String(editor)) || { name: 'Someone', color: '#f59e0b' };
}

function isMe(editor) {
  return Boolean(state.doc && state.doc.you) && String(state.doc.you.editor) === String(editor);
}

function onDrawing(frame) {
  if (!frame || isMe(frame.editor)) return;
  const editor = String(frame.editor);
  if (!frame.stroke) {
    // Their stroke ended (committed just before, or cancelled).
    if (state.live.delete(editor)) composeFrame();
    return;
  }
  state.live.set(editor, { layer: frame.layer, stroke: frame.stroke, shot: frame.shot, at: performance.now() });
  if (frame.shot === state.shotId) composeFrame();
  scheduleSweep();
}

function onCursor(frame) {
  if (!frame || isMe(frame.editor)) return;
  state.cursors.set(String(frame.editor), { x: frame.x, y: frame.y, shot: frame.shot, at: performance.now() });
  placeCursors();
  scheduleSweep();
}

let sweepTimer = 0;

/** Strokes whose drawer went quiet, and cursors gone still, are taken away. */
function scheduleSweep() {
  if (sweepTimer) return;
  sweepTimer = setTimeout(() => {
    sweepTimer = 0;
    const now = performance.now();
    let again = false;
    for (const [editor, entry] of state.live) {
      if (now - entry.at > LIVE_STALE_MS) state.live.delete(editor);
      else again = true;
    }
    for (const [editor, entry] of state.cursors) {
      if (now - entry.at > CURSOR_STALE_MS) state.cursors.delete(editor);
      else again = true;
    }
    composeFrame();
    placeCursors();
    if (again) scheduleSweep();
  }, 1000);
}

function placeCursors() {
  const box = $('cursors');
  const seen = new Set();
  for (const [editor, c] of state.cursors) {
    if (c.shot !== state.shotId) continue;
    seen.add(editor);
    let node = [...box.children].find((n) => n.dataset.editor === editor);
    const info = editorInfo(editor);
    if (!node) {
      node = el('div', { class: 'sk-cursor', attrs: { 'data-editor': editor } }, [el('span')]);
      box.append(node);
    }
    node.querySelector('span').textContent = info.name || 'Someone';
    node.style.setProperty('--who', info.color || '#f59e0b');
    const [x, y] = renderer.toStage(c.x, c.y);
    node.style.transform = 'translate(' + Math.round(x) + 'px,' + Math.round(y) + 'px)';
  }
  for (const node of [...box.children]) if (!seen.has(node.dataset.editor)) node.remove();
}

function renderEditors(editors) {
  const you = state.doc && state.doc.you ? state.doc.you.editor : null;
  $('editors').replaceChildren(...(editors || []).map((e) => {
    const dot = el('span', {
      class: 'sb-editor-dot' + (e.editor === you ? ' is-you' : ''), text: (e.name || '?').trim().charAt(0).toUpperCase(),
      attrs: { title: (e.name || 'Someone') + (e.editor === you ? ' (you)' : '') },
    });
    if (e.color) dot.style.setProperty('--who', e.color);
    return dot;
  }));
  const here = new Set((editors || []).map((e) => String(e.editor)));
  for (const id of [...state.cursors.keys()]) if (!here.has(id)) state.cursors.delete(id);
  for (const id of [...state.live.keys()]) if (!here.has(id)) state.live.delete(id);
  placeCursors();
  composeFrame();
}

// ---- the tool rail ----

const toolButtons = new Map();

function buildTools() {
  const rail = $('tools');
  for (const t of TOOLS) {
    const button = iconButton(t.icon, t.label + ' (' + t.key + ')', {
      cls: 'btn btn-icon sk-tool', showLabel: false,
      attrs: { 'data-tool': t.tool, 'aria-pressed': 'false', 'aria-keyshortcuts': t.key.replace('Shift+', 'Shift+') },
      on: { click: () => setTool(t.tool) },
    });
    toolButtons.set(t.tool, button);
    rail.append(button);
  }
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  for (const color of PALETTE) rail.append(swatch(color, 'palette'));
  const input = el('input', { class: 'sk-color-input', attrs: { type: 'color', id: 'color-input', 'aria-label': 'Choose a colour', title: 'Choose a colour' } });
  input.value = state.color;
  input.addEventListener('change', () => setColor(input.value));
  rail.append(input);
  rail.append(el('div', { class: 'sk-recent', attrs: { id: 'recent-colors', role: 'group', 'aria-label': 'Recent colours' } }));
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  rail.append(
    iconButton('minus', 'Thinner ([)', { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thinner', 'aria-keyshortcuts': '[' }, on: { click: () => changeWidth(1 / 1.25) } }),
    iconButton('plus', 'Thicker (])', { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thicker', 'aria-keyshortcuts': ']' }, on: { click: () => changeWidth(1.25) } }),
    el('div', { class: 'sk-width', attrs: { id: 'width-preview', 'aria-live': 'polite' } }),
  );
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  rail.append(
    iconButton('undo', 'Undo (Ctrl+Z)', { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'undo', 'aria-keyshortcuts': 'Control+Z' }, on: { click: () => state.doc && state.doc.undo() } }),
    iconButton('undo', 'Redo (Ctrl+Shift+Z)', { cls: 'btn btn-icon sk-redo', showLabel: false, attrs: { 'data-action': 'redo', 'aria-keyshortcuts': 'Control+Shift+Z' }, on: { click: () => state.doc && state.doc.redo() } }),
  );
  const vt = $('view-tools');
  vt.append(
    iconButton('minus', 'Zoom out (-)', { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-out' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom / 1.25 }) } }),
    el('span', { class: 'sk-zoom', attrs: { id: 'zoom-level' }, text: '100%' }),
    iconButton('plus', 'Zoom in (+)', { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-in' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom * 1.25 }) } }),
    iconButton('zoom-reset', 'Reset the view (0)', { cls: 'btn', showLabel: false, attrs: { 'data-action': 'reset-view' }, on: { click: () => renderer.resetView() } }),
  );
  renderTools();
}

function swatch(color, kind) {
  return el('button', {
    class: 'sk-swatch', attrs: { type: 'button', 'aria-label': 'Colour ' + color, title: color, 'data-color': color, 'data-kind': kind, 'aria-pressed': 'false' },
    on: { click: () => setColor(color) },
  });
}

function setTool(tool) {
  if (tool === 'ruler' && state.tool === 'ruler' && state.ruler) {
    // U again: the ruler goes away.
    state.ruler = null;
    stage.dataset.ruler = '';
    tool = state.previousTool || 'pen';
  } else if (tool === 'ruler' && !state.ruler) {
    state.ruler = { x: 0.5, y: 0.5, angle: 0 };
    stage.dataset.ruler = '0.500,0.500,0.000';
  }
  if (tool !== 'ruler' && tool !== state.tool) state.previousTool = tool;
  if (tool !== 'lasso') state.selection = null;
  state.tool = tool;
  stage.dataset.tool = tool;
  stage.dataset.mode = tool === 'transform' ? 'transform-layer' : 'draw';
  renderTools();
  refresh();
}

function setColor(color) {
  state.color = color.toLowerCase();
  if (!PALETTE.includes(state.color)) state.recent = [state.color, ...state.recent.filter((c) => c !== state.color)].slice(0, 5);
  if (['eraser', 'split', 'lasso', 'ruler', 'transform'].includes(state.tool)) setTool('pen');
  remember();
  renderTools();
}

function widthTool() {
  return DEFAULT_WIDTH[state.tool] ? state.tool : 'pen';
}

function changeWidth(factor) {
  const tool = widthTool();
  state.widths[tool] = clampWidth(state.widths[tool] * factor);
  remember();
  renderTools();
}

function renderTools() {
  for (const [tool, button] of toolButtons) button.setAttribute('aria-pressed', tool === state.tool ? 'true' : 'false');
  for (const s of document.querySelectorAll('.sk-swatch')) s.setAttribute('aria-pressed', s.dataset.color === state.color ? 'true' : 'false');
  for (const s of document.querySelectorAll('.sk-swatch')) s.style.setProperty('--swatch', s.dataset.color);
  const recent = $('recent-colors');
  recent.replaceChildren(...state.recent.map((c) => swatch(c, 'recent')));
  for (const s of recent.children) {
    s.style.setProperty('--swatch', s.dataset.color);
    s.setAttribute('aria-pressed', s.dataset.color === state.color ? 'true' : 'false');
  }
  $('color-input').value = /^#[0-9a-f]{6}$/i.test(state.color) ? state.color : '#111111';
  const tool = widthTool();
  const w = state.widths[tool];
  const preview = $('width-preview');
  const px = Math.max(2, Math.min(28, w * 900));
  const dot = el('span', { class: 'sk-width-dot' });
  dot.style.width = px + 'px';
  dot.style.height = px + 'px';
  preview.replaceChildren(dot, el('span', { class: 'sk-width-value', text: (w * 100).toFixed(2) + '%' }));
  preview.title = 'Width: ' + (w * 100).toFixed(2) + '% of the shot’s width';
  preview.dataset.width = String(w);
}

// ---- the panel: layers, onion skin, the shot's fields ----

const panel = $('panel');
const layers = new LayersPanel({
  edit: (e) => edit(e),
  shotId: () => state.shotId,
  select: (id) => {
    state.layerId = id;
    state.selection = null;
    refresh();
  },
  transformMode: () => state.tool === 'transform',
  toggleTransform: () => setTool(state.tool === 'transform' ? state.previousTool || 'pen' : 'transform'),
});

function buildPanel() {
  const before = el('select', { class: 'input', attrs: { id: 'onion-before', 'aria-label': 'Shots before' } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.before } })));
  const after = el('select', { class: 'input', attrs: { id: 'onion-after', 'aria-label': 'Shots after' } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.after } })));
  const opacity = el('input', { class: 'sk-onion-opacity', attrs: { type: 'range', min: '0.05', max: '1', step: '0.05', id: 'onion-opacity', 'aria-label': 'Onion skin opacity' } });
  opacity.value = String(state.onion.opacity);
  const onOnion = () => {
    state.onion = { before: Number(before.value), after: Number(after.value), opacity: Number(opacity.value) };
    remember();
    composeFrame();
  };
  before.addEventListener('change', onOnion);
  after.addEventListener('change', onOnion);
  opacity.addEventListener('input', onOnion);
  const onion = el('section', { class: 'sk-section', attrs: { 'aria-labelledby': 'onion-title' } }, [
    el('div', { class: 'sk-section-head' }, [el('h2', { text: 'Onion skin', attrs: { id: 'onion-title' } })]),
    el('div', { class: 'sk-row' }, [
      el('label', { class: 'sk-onion-prev' }, ['Before', before]),
      el('label', { class: 'sk-onion-next' }, ['After', after]),
    ]),
    el('div', { class: 'sk-row' }, [el('label', { attrs: { for: 'onion-opacity' }, text: 'Opacity' }), opacity]),
  ]);
  const shotSection = el('section', { class: 'sk-section', attrs: { 'aria-labelledby': 'shot-fields-title', id: 'shot-fields' } }, [
    el('div', { class: 'sk-section-head' }, [el('h2', { text: 'Shot', attrs: { id: 'shot-fields-title' } })]),
  ]);
  const field = (name, label, node) => el('label', { class: 'sk-field' }, [label, node]);
  const bg = el('input', { class: 'sk-color-input', attrs: { type: 'color', id: 'shot-background', 'data-field': 'background', 'aria-label': 'Background colour' } });
  bg.addEventListener('change', () => edit({ op: 'updateShot', shot: state.shotId, background: bg.value }));
  const duration = el('input', { class: 'input', attrs: { type: 'number', min: '0.1', max: '600', step: '0.1', id: 'shot-duration', 'data-field': 'duration', inputmode: 'decimal' } });
  duration.addEventListener('change', () => {
    if (duration.value.trim() === '') return; // being retyped: the value comes with the next change
    const value = Number(duration.value);
    const shot = currentShot();
    if (!(value >= 0.1 && value <= 600)) {
      flash('A duration is between 0.1 and 600 seconds.');
      if (shot) duration.value = String(shot.duration);
      return;
    }
    edit({ op: 'updateShot', shot: state.shotId, duration: Math.round(value * 10) / 10 });
  });
  shotSection.append(el('div', { class: 'sk-row' }, [field('duration', 'Duration (s)', duration), field('background', 'Background', bg)]));
  for (const [name, label] of [['dialogue', 'Dialogue'], ['action', 'Action'], ['notes', 'Notes']]) {
    const area = el('textarea', { class: 'input', attrs: { rows: 2, maxlength: 5000, id: 'shot-' + name, 'data-field': name } });
    area.addEventListener('change', () => edit({ op: 'updateShot', shot: state.shotId, [name]: area.value }));
    shotSection.append(field(name, label, area));
  }
  shotSection.append(el('div', { class: 'sk-row' }, [
    iconButton('clock', 'Earlier versions', { cls: 'btn btn-sm', attrs: { 'data-action': 'shot-history' }, on: { click: showHistory } }),
  ]));
  panel.append(layers.node, onion, shotSection);
}

/** The shot's versions (the server keeps one per burst of one person's edits): restore one. */
async function showHistory() {
  const shotId = state.shotId;
  if (!shotId) return;
  const base = '/api/v1/storyboards/' + encodeURIComponent(projectId) + '/shots/' + encodeURIComponent(shotId) + '/versions';
  let versions;
  try {
    versions = await api(base);
  } catch (error) {
    toast(error.message, { kind: 'error' });
    return;
  }
  const list = el('ol', { class: 'sk-versions', attrs: { id: 'versions' } });
  const close = el('button', { class: 'btn', text: 'Close', attrs: { type: 'submit', value: 'close' } });
  const { dialog } = modalDialog({ title: 'Earlier versions of this shot', body: [list], actions: [close], form: true, id: 'versions-dialog' });
  if (!versions.length) list.append(el('li', { text: 'No earlier versions yet.' }));
  versions.forEach((v, i) => {
    const when = new Date(v.at);
    const restore = el('button', {
      class: 'btn btn-sm', text: i === 0 ? 'Current' : 'Restore', attrs: { type: 'button', 'data-action': 'restore-version', 'data-seq': v.seq, disabled: i === 0 },
    });
    restore.addEventListener('click', async () => {
      try {
        const shot = await api(base + '/' + encodeURIComponent(v.seq));
        edit({ op: 'restoreShot', shot });
        dialog.close();
        flash('Restored the version of ' + when.toLocaleTimeString() + '.');
      } catch (error) {
        toast(error.message, { kind: 'error' });
      }
    });
    list.append(el('li', { class: 'sk-version' }, [
      el('span', { text: (Number.isNaN(when.getTime()) ? '' : when.toLocaleString()) + ' · ' + (v.authorName || 'someone') }),
      restore,
    ]));
  });
  close.focus();
}

function renderShotFields(shot) {
  for (const field of panel.querySelectorAll('#shot-fields [data-field]')) {
    if (field === document.activeElement) continue;
    const name = field.dataset.field;
    const value = name === 'duration' ? String(shot.duration) : name === 'background' ? shot.background || '#ffffff' : shot[name] || '';
    if (field.value !== value) field.value = value;
  }
}

// ---- shots: previous / next ----

function goToShot(step) {
  const v = view();
  if (!v || !state.shotId) return;
  const found = locateShot(v, state.shotId);
  const list = allShots(v);
  const target = list[found.position + step];
  if (!target) return;
  cancelAction();
  state.shotId = target.shot.id;
  state.layerId = null;
  state.selection = null;
  const url = new URL(location.href);
  url.searchParams.set('shot', state.shotId);
  history.replaceState(null, '', url);
  $('back').href = '/storyboard.html?id=' + encodeURIComponent(projectId) + '&shot=' + encodeURIComponent(state.shotId);
  refresh();
}

$('prev-shot').addEventListener('click', () => goToShot(-1));
$('next-shot').addEventListener('click', () => goToShot(1));

// ---- keyboard ----

const SHORTCUTS = [
  ['B', 'Pen'], ['M', 'Marker'], ['P', 'Pencil'], ['E', 'Eraser (whole strokes)'], ['Shift+E or Alt+drag', 'Partial eraser'],
  ['L', 'Lasso'], ['U', 'Ruler (again: hide it)'], ['T', 'Transform the layer (drag; Shift turns, Alt scales)'],
  ['Ctrl+Z', 'Undo your last change'], ['Ctrl+Shift+Z, Ctrl+Y', 'Redo'], ['[ and ]', 'Thinner, thicker'],
  ['Space + drag, middle button', 'Pan'], ['Wheel, + and -', 'Zoom'], ['R, Shift+R', 'Rotate the view'], ['0', 'Reset the view'],
  ['← → PageUp PageDown', 'Previous, next shot'], ['Ctrl+D, Delete', 'Duplicate, delete the selection'],
  ['H', 'View only (a phone: swipe for the next shot)'], ['Esc', 'Deselect'], ['?', 'This help'],
];

function showHelp() {
  const list = el('dl', { class: 'sk-help-list' });
  for (const [keys, what] of SHORTCUTS) list.append(el('dt', { text: keys }), el('dd', { text: what }));
  const close = el('button', { class: 'btn btn-primary', text: 'Close', attrs: { type: 'submit', value: 'close' } });
  const { dialog } = modalDialog({ title: 'Keyboard shortcuts', body: [list], actions: [close], form: true, id: 'help-dialog', cls: 'sk-help-dialog' });
  close.focus();
  void dialog;
}

$('help').addEventListener('click', showHelp);
$('panel-toggle').addEventListener('click', () => {
  const open = !document.body.classList.contains('panel-open');
  document.body.classList.toggle('panel-open', open);
  $('panel-toggle').setAttribute('aria-expanded', open ? 'true' : 'false');
});

window.addEventListener('keydown', (event) => {
  if (dialogOpen() || isTyping(event)) return;
  const key = event.key;
  const mod = event.ctrlKey || event.metaKey;
  if (mod && (key === 'z' || key === 'Z')) {
    event.preventDefault();
    if (event.shiftKey) state.doc && state.doc.redo();
    else state.doc && state.doc.undo();
    return;
  }
  if (mod && (key === 'y' || key === 'Y')) {
    event.preventDefault();
    if (state.doc) state.doc.redo();
    return;
  }
  if (mod && (key === 'd' || key === 'D')) {
    event.preventDefault();
    duplicateSelection();
    return;
  }
  if (mod || event.altKey) return;
  if (event.target instanceof HTMLElement && event.target.closest('button, a') && (key === ' ' || key === 'Enter')) return;
  switch (key) {
    case ' ':
      event.preventDefault();
      state.space = true;
      stage.classList.add('is-panning');
      return;
    case 'b': case 'B': setTool('pen'); break;
    case 'm': case 'M': setTool('marker'); break;
    case 'p': case 'P': setTool('pencil'); break;
    case 'e': setTool('eraser'); break;
    case 'E': setTool('split'); break;
    case 'l': case 'L': setTool('lasso'); break;
    case 'u': case 'U': setTool('ruler'); break;
    case 'h': case 'H': setTool('view'); break;
    case 't': case 'T': setTool(state.tool === 'transform' ? state.previousTool || 'pen' : 'transform'); break;
    case '[': changeWidth(1 / 1.25); break;
    case ']': changeWidth(1.25); break;
    case '+': case '=': renderer.setView({ zoom: renderer.view.zoom * 1.25 }); break;
    case '-': case '_': renderer.setView({ zoom: renderer.view.zoom / 1.25 }); break;
    case '0': renderer.resetView(); break;
    case 'r': renderer.setView({ rotation: renderer.view.rotation + Math.PI / 12 }); break;
    case 'R': renderer.setView({ rotation: renderer.view.rotation - Math.PI / 12 }); break;
    case 'ArrowLeft': case 'PageUp': goToShot(-1); break;
    case 'ArrowRight': case 'PageDown': goToShot(1); break;
    case '?': showHelp(); break;
    case 'Escape':
      cancelAction();
      state.selection = null;
      document.body.classList.remove('panel-open');
      refresh();
      break;
    case 'Delete': case 'Backspace':
      if (state.selection) deleteSelection();
      else return;
      break;
    default:
      return;
  }
  event.preventDefault();
});

window.addEventListener('keyup', (event) => {
  if (event.key === ' ') {
    state.space = false;
    stage.classList.remove('is-panning');
  }
});

new ResizeObserver(() => {
  renderer.resize();
  composeFrame();
}).observe(stage);

buildTools();
buildPanel();
// A phone is for looking (one hand, swipe through the shots); a pen or a mouse draws.
setTool(window.matchMedia('(max-width: 600px)').matches ? 'view' : 'pen');
start();

export { state as sketchState };
void icon;
