// The shot editor's pointer tools: pens, erasers (whole and partial), lasso (move, scale, rotate,
// duplicate, delete), ruler, transforming a layer, panning; two fingers pan, pinch and twist the
// view (or the layer); the wheel zooms. Their marks (ruler, lasso, selection, eraser's path) go on
// the overlay canvas.

import { t } from '../core/i18n.js';
import { iconButton } from '../core/ui.js';
import { newId, transformPoint, untransformPoint } from './common.js';
import {
  strokeHit, lassoSelect, densify, bounds, transformStrokes, eraseFrom, snapToRuler, rulerDistance, capPoints, clampWidth, round, movePoint,
} from './geometry.js';
import { simplify } from './freehand.js';
import {
  $, state, stage, canvas, renderer, hooks, currentShot, currentLayer, edit, flash, RULER_SNAP_PX, RULER_BAND_PX, HANDLE_PX,
} from './sketch-context.js';

// ---- the tools' marks on the overlay ----

function layerToStage(layer, p) {
  const q = transformPoint(p, layer ? (state.transforms[layer.id] || layer.transform) : null, renderer.aspect);
  return renderer.toStage(q[0], q[1]);
}

export function rulerEnds(ruler) {
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

export function renderSelectionTools() {
  const bar = $('selection-tools');
  const count = state.selection ? state.selection.ids.length : 0;
  bar.hidden = !count;
  if (!count) return;
  if (bar.childElementCount) return;
  bar.append(
    iconButton('copy', t('storyboard.duplicate'), { cls: 'btn btn-sm', attrs: { 'data-action': 'duplicate-selection', 'aria-keyshortcuts': 'Control+D' }, on: { click: duplicateSelection } }),
    iconButton('trash', t('storyboard.delete'), { cls: 'btn btn-sm', attrs: { 'data-action': 'delete-selection', 'aria-keyshortcuts': 'Delete' }, on: { click: deleteSelection } }),
    iconButton('x', t('storyboard.deselect'), { cls: 'btn btn-sm', attrs: { 'data-action': 'deselect', 'aria-keyshortcuts': 'Escape' }, on: { click: () => { state.selection = null; hooks.refresh(); } } }),
  );
}

export function deleteSelection() {
  const strokes = selectedStrokes();
  if (!strokes.length) return;
  edit({ op: 'removeStrokes', shot: state.shotId, layer: state.selection.layer, strokes: strokes.map((s) => s.id) });
  state.selection = null;
  hooks.refresh();
}

export function duplicateSelection() {
  const strokes = selectedStrokes();
  if (!strokes.length) return;
  const b = bounds(strokes, renderer.aspect);
  const copies = transformStrokes(strokes, [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2], { dx: 0.02, dy: 0.02 * renderer.aspect }, renderer.aspect, state.author);
  const layer = state.selection.layer;
  if (edit({ op: 'addStrokes', shot: state.shotId, layer, strokes: copies })) {
    state.selection = { layer, ids: copies.map((s) => s.id) };
    hooks.refresh();
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
    flash(t('storyboard.layer-locked', { name: layer.name }));
    return null;
  }
  if (!layer.visible) {
    flash(t('storyboard.layer-hidden', { name: layer.name }));
    return null;
  }
  return layer;
}

// ---- palm rejection and finger taps (as in Procreate) ----
//
// Once a pen has been seen, a finger never draws: one finger pans, two pan, pinch and turn the
// view; a touch while the pen draws (a palm) is ignored. A quick tap of two fingers undoes, of
// three redoes (with or without a pen). A mouse always draws.

const TAP_MS = 350;
const TAP_SLOP_PX = 14;
const taps = { down: new Map(), most: 0, moved: false, at: 0 };
const ignored = new Set(); // touches that are palms: never an action of theirs

function tapDown(event) {
  if (taps.down.size === 0) {
    taps.most = 0;
    taps.moved = false;
    taps.at = performance.now();
  }
  taps.down.set(event.pointerId, [event.clientX, event.clientY]);
  taps.most = Math.max(taps.most, taps.down.size);
}

function tapMove(event) {
  const start = taps.down.get(event.pointerId);
  if (start && Math.hypot(event.clientX - start[0], event.clientY - start[1]) > TAP_SLOP_PX) taps.moved = true;
}

function tapUp(event, cancelled) {
  if (!taps.down.has(event.pointerId)) return;
  taps.down.delete(event.pointerId);
  if (cancelled) taps.moved = true;
  if (taps.down.size || taps.moved || performance.now() - taps.at > TAP_MS || !state.doc) return;
  if (taps.most === 2) {
    state.doc.undo();
    flash(t('storyboard.undone-by-tap'));
  } else if (taps.most === 3) {
    state.doc.redo();
    flash(t('storyboard.redone-by-tap'));
  }
}

function penDrawing() {
  const a = state.action;
  return !!(a && a.pointerType === 'pen');
}

function notePen() {
  if (state.penSeen) return;
  state.penSeen = true;
  stage.dataset.pen = 'seen';
  flash(t('storyboard.pen-seen'));
}

canvas.addEventListener('pointerdown', (event) => {
  if (!currentShot()) return;
  if (event.pointerType === 'pen') {
    notePen();
    taps.moved = true; // fingers on the glass as the pen comes down are no tap
    // The pen comes down while fingers move the view: the pen wins, those fingers are done.
    if (state.action && state.action.pointerType === 'touch') {
      cancelAction();
      for (const id of state.pointers.keys()) ignored.add(id);
      state.pointers.clear();
    }
  }
  if (event.pointerType === 'touch') {
    tapDown(event);
    if (state.penSeen && penDrawing()) {
      ignored.add(event.pointerId); // a palm on the glass while the pen draws
      return;
    }
  }
  try {
    canvas.setPointerCapture(event.pointerId);
  } catch (_) {
    // the pointer is already gone
  }
  state.pointers.set(event.pointerId, stagePoint(event));
  if (state.pointers.size === 2) {
    cancelAction();
    startGesture();
    return;
  }
  if (state.pointers.size > 2) return;
  event.preventDefault();
  if (event.button === 1 || state.space || state.tool === 'view' || (event.pointerType === 'touch' && state.penSeen)) {
    startPan(event, state.tool === 'view');
    state.action.pointerType = event.pointerType;
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
  if (state.action && state.action.pointerId === event.pointerId) state.action.pointerType = event.pointerType;
});

canvas.addEventListener('pointermove', (event) => {
  const shot = currentShot();
  if (shot && state.doc && event.pointerType !== 'touch') {
    const [x, y] = shotPoint(event);
    if (x >= -1 && x <= 2 && y >= -1 && y <= 2) state.doc.conn.sendCursor(shot.id, round(x), round(y));
  }
  if (event.pointerType === 'touch') tapMove(event);
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
  if (event.pointerType === 'touch') tapUp(event, cancelled);
  ignored.delete(event.pointerId);
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
  hooks.composeFrame();
}

canvas.addEventListener('pointerup', (event) => endPointer(event, false));
canvas.addEventListener('pointercancel', (event) => endPointer(event, true));
canvas.addEventListener('lostpointercapture', (event) => {
  if (state.pointers.has(event.pointerId)) endPointer(event, false);
});

export function cancelAction() {
  const a = state.action;
  state.action = null;
  if (a && a.cancel) a.cancel();
  hooks.composeFrame();
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
  hooks.composeFrame();
  state.action = {
    kind: 'stroke', pointerId: event.pointerId,
    move(e, events) {
      for (const ev of events) add(ev);
      if (stroke.points.length > 1 && state.doc) state.doc.conn.sendDrawing(shotId, layer.id, { ...stroke, points: capPoints(stroke.points) });
      hooks.composeFrame();
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
  hooks.composeFrame();
  state.action = {
    kind: 'erase', pointerId: event.pointerId,
    move(e, events) {
      const before = hits.size;
      for (const ev of events) test(ev);
      if (hits.size !== before) {
        state.hidden = new Map([[layer.id, new Set(hits)]]);
        hooks.composeFrame();
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
        flash(t('storyboard.layer-locked', { name: layer.name }));
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
      hooks.refresh();
    },
    cancel() {
      renderer.invalidate();
    },
  };
  hooks.refresh();
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
    hooks.composeFrame();
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
      hooks.refresh();
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
    flash(t('storyboard.layer-locked', { name: layer.name }));
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
      hooks.composeFrame();
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
  hooks.composeFrame();
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
        hooks.goToShot(dx < 0 ? 1 : -1);
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
        hooks.composeFrame();
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
    kind: 'gesture', pointerType: 'touch',
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
