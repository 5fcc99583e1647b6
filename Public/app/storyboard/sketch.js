// The shot editor (/sketch.html?id=…&shot=…): a canvas of the project's aspect ratio fitted to the
// window; pen, marker, pencil, eraser (whole strokes, or partial: splits strokes), lasso (move,
// scale, rotate, duplicate, delete), ruler (strokes started on it run straight along it); colours,
// recent colours, widths; undo / redo of one's own edits; layers (layers.js); canvas pan, zoom and
// rotation (keys, wheel, two fingers); onion skin; the shot's fields; previous / next shot; others'
// cursors and strokes as they draw them.
//
// This module wires the editor's parts together: sketch-context.js (state, canvas, the document),
// sketch-pointer.js (the pointer tools), sketch-rail.js (tools, colours, widths), sketch-panel.js
// (layers, onion skin, the shot's fields), sketch-presence.js (the others' cursors and strokes).
//
// State for tests: body[data-ready]; #stage[data-tool][data-layer][data-selected][data-live]
// [data-shot]; #sketch-canvas (the composed shot: getImageData), #stage[data-view] ("panX,panY,zoom,rot").

import { api } from '../core/api.js';
import { startPage, signedInUser } from '../core/page.js';
import { errorText, formatNumber, t } from '../core/i18n.js';
import { el, toast, isTyping, dialogOpen, modalDialog } from '../core/ui.js';
import { StoryDoc, userId } from './doc.js';
import { locateShot, neighbourShots, allShots, durationText, storyErrorText } from './common.js';
import {
  $, projectId, state, stage, renderer, save, hooks, view, currentShot, showMessage, flash, LIVE_STALE_MS,
} from './sketch-context.js';
import { cancelAction, deleteSelection, duplicateSelection, renderSelectionTools } from './sketch-pointer.js';
import { onDrawing, onCursor, placeCursors, renderEditors } from './sketch-presence.js';
import { buildTools, setTool, changeWidth } from './sketch-rail.js';
import { layers, buildPanel, renderShotFields } from './sketch-panel.js';

// ---- start ----

async function start() {
  if (!projectId) {
    showMessage(t('storyboard.no-id'));
    return;
  }
  const user = await signedInUser((error) => showMessage(errorText(error)));
  if (!user) return;
  state.author = userId(user);
  $('back').href = '/storyboard.html?id=' + encodeURIComponent(projectId) + (state.shotId ? '&shot=' + encodeURIComponent(state.shotId) : '');
  try {
    state.record = await api('/api/v1/storyboards/' + encodeURIComponent(projectId));
  } catch (error) {
    showMessage(error.status === 404 ? t('storyboard.not-found') : errorText(error));
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
  doc.addEventListener('dropped', (event) => toast(t('storyboard.not-saved', { reason: storyErrorText(event.detail) }), { kind: 'error' }));
  doc.addEventListener('refused', (event) => flash(event.detail.kind === 'redo' ? t('storyboard.nothing-to-redo') : t('storyboard.nothing-to-undo')));
  doc.addEventListener('fatal', (event) => showMessage(event.detail.code || event.detail.message ? storyErrorText(event.detail) : t('storyboard.cannot-open-this')));
  doc.connect();
}

function onChange({ source, edit: e }) {
  const v = view();
  if (!v) return;
  if (state.shotId && !locateShot(v, state.shotId)) {
    // Our shot was deleted (by someone else, or undone): go to the one now in its place.
    const list = allShots(v);
    const near = list[Math.min(state.position || 0, list.length - 1)];
    flash(t('storyboard.shot-deleted'));
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
  refresh();
}

// ---- rendering ----

function refresh() {
  const v = view();
  const shot = currentShot();
  if (!v || !shot) {
    renderer.frame = null;
    renderer.invalidate();
    if (v) $('shot-title').textContent = t('storyboard.no-shot');
    return;
  }
  if (!shot.layers.some((l) => l.id === state.layerId)) state.layerId = shot.layers.length ? shot.layers[shot.layers.length - 1].id : null;
  const found = locateShot(v, shot.id);
  state.position = found.position;
  $('shot-title').textContent = t('storyboard.shot-title', { number: shot.number || '', duration: durationText(shot.duration) });
  $('shot-subtitle').textContent = t('storyboard.shot-subtitle', {
    scene: found.sceneIndex + 1, title: found.scene.title || t('storyboard.untitled'), position: found.position + 1, total: found.total,
  });
  document.title = t('storyboard.shot-document-title', { number: shot.number || '', title: state.record ? state.record.title : t('storyboard.storyboard') });
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
  const zoom = formatNumber(v.zoom, { style: 'percent' });
  if ($('zoom-level').textContent !== zoom) {
    $('zoom-level').textContent = zoom;
    $('zoom-level').setAttribute('aria-label', t('storyboard.reset-view-at', { zoom }));
  }
  const a = renderer.toStage(0, 0);
  const b = renderer.toStage(1, 1);
  stage.dataset.shotRect = [a[0], a[1], b[0] - a[0], b[1] - a[1]].map((n) => n.toFixed(1)).join(',');
  placeCursors();
};

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

// The help's keys and what they do: `storyboard.help.<name>.keys` and `storyboard.help.<name>`.
const SHORTCUTS = ['pen', 'marker', 'pencil', 'eraser', 'split', 'lasso', 'ruler', 'transform', 'undo', 'redo', 'width',
  'pan', 'zoom', 'rotate', 'reset', 'shots', 'selection', 'view', 'deselect', 'fullscreen', 'touch', 'help'];

function showHelp() {
  const list = el('dl', { class: 'sk-help-list' });
  for (const name of SHORTCUTS) list.append(el('dt', { text: t(`storyboard.help.${name}.keys`) }), el('dd', { text: t(`storyboard.help.${name}`) }));
  const close = el('button', { class: 'btn btn-primary', text: t('storyboard.close'), attrs: { type: 'submit', value: 'close' } });
  modalDialog({ title: t('storyboard.keyboard-shortcuts'), body: [list], actions: [close], form: true, id: 'help-dialog', cls: 'sk-help-dialog' });
  close.focus();
}

$('help').addEventListener('click', showHelp);

// ---- the canvas is the page: panels fold away (remembered), full-screen drawing ----

const LAYOUT_KEY = 'podium.sketch.layout';
const wide = () => window.matchMedia('(min-width: 1101px)').matches;
const layout = (() => {
  try {
    const stored = JSON.parse(localStorage.getItem(LAYOUT_KEY) || '{}');
    // Unless the person chose: the panel is open on a wide screen, folded on a tablet or a phone.
    return { panel: typeof stored.panel === 'boolean' ? stored.panel : wide(), rail: stored.rail !== false };
  } catch (_) {
    return { panel: wide(), rail: true };
  }
})();

function applyLayout() {
  document.body.classList.toggle('panel-open', layout.panel);
  document.body.classList.toggle('rail-folded', !layout.rail);
  $('panel-toggle').setAttribute('aria-expanded', layout.panel ? 'true' : 'false');
  const rail = $('rail-toggle');
  rail.setAttribute('aria-expanded', layout.rail ? 'true' : 'false');
  const railLabel = t(layout.rail ? 'storyboard.hide-tools' : 'storyboard.show-tools');
  rail.setAttribute('aria-label', railLabel);
  rail.title = railLabel;
  document.body.dataset.panel = layout.panel ? 'open' : 'folded';
  document.body.dataset.rail = layout.rail ? 'open' : 'folded';
}

function setLayout(change, keep = true) {
  Object.assign(layout, change);
  if (keep) {
    try {
      localStorage.setItem(LAYOUT_KEY, JSON.stringify(layout));
    } catch (_) {
      // private mode: not kept
    }
  }
  applyLayout();
}

$('panel-toggle').addEventListener('click', () => setLayout({ panel: !layout.panel }));
$('rail-toggle').addEventListener('click', () => setLayout({ rail: !layout.rail }));
applyLayout();

function drawingMode(on) {
  document.body.classList.toggle('drawing-mode', on);
  document.body.dataset.drawingMode = on ? 'true' : 'false';
  $('drawing-mode').setAttribute('aria-pressed', on ? 'true' : 'false');
  $('leave-drawing-mode').hidden = !on;
  const root = document.documentElement;
  if (on && !document.fullscreenElement && root.requestFullscreen) {
    // Where the browser has no Fullscreen API (an iPhone), hiding the page's bars is the fallback.
    root.requestFullscreen({ navigationUI: 'hide' }).catch(() => {});
  } else if (!on && document.fullscreenElement && document.exitFullscreen) {
    document.exitFullscreen().catch(() => {});
  }
}

$('drawing-mode').addEventListener('click', () => drawingMode(!document.body.classList.contains('drawing-mode')));
$('leave-drawing-mode').addEventListener('click', () => drawingMode(false));
document.addEventListener('fullscreenchange', () => {
  // Esc (or the browser's own control) left full screen: the page's bars come back too.
  if (!document.fullscreenElement && document.body.classList.contains('drawing-mode')) drawingMode(false);
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
      if (document.body.classList.contains('drawing-mode')) drawingMode(false);
      else if (!wide() && layout.panel) setLayout({ panel: false });
      refresh();
      break;
    case 'f': case 'F': drawingMode(!document.body.classList.contains('drawing-mode')); break;
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

hooks.refresh = refresh;
hooks.composeFrame = composeFrame;
hooks.goToShot = goToShot;

buildTools();
buildPanel();
// A phone is for looking (one hand, swipe through the shots); a pen or a mouse draws.
setTool(window.matchMedia('(max-width: 600px)').matches ? 'view' : 'pen');
startPage(start);
