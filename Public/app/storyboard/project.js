// The storyboard project page (/storyboard.html?id=…): title, description and aspect ratio (REST);
// scenes as rows of shot cards (thumbnails drawn from the strokes), add / rename / delete / reorder
// scenes, add / duplicate / delete shots, drag shots to reorder them within and across scenes
// (pointer events: mouse, pen, and touch by the grip), Alt+arrows or "Move to…" from the keyboard;
// the selected shot's duration, dialogue, action, notes and background. Live: every edit goes
// through the storyboard socket (doc.js), and others' edits show at once.
//
// State for tests: #scenes > li.sb-scene[data-scene-id] with .sb-shot[data-shot-id][data-number];
// #save-state[data-state]; body[data-ready] once the first welcome is in.

import { api } from '../core/api.js';
import { startPage, signedInUser } from '../core/page.js';
import { errorText, t } from '../core/i18n.js';
import { el, icon, iconButton, toast, confirmDialog, promptDialog, modalDialog, isTyping, dialogOpen } from '../core/ui.js';
import { StoryDoc, userId } from './doc.js';
import { mountProjectTools } from './project-tools.js';
import { openShotHistory } from './history.js';
import {
  aspectValue, aspectOptions, allShots, locateShot, emptyShot, drawShot, durationText, saveIndicator, newId, strokeCount, storyErrorText,
} from './common.js';

const params = new URLSearchParams(location.search);
const projectId = params.get('id');
const $ = (id) => document.getElementById(id);

const state = {
  record: null,
  doc: null,
  selected: params.get('shot') || null,
  // The selected shot's details show when a shot is picked here, not on coming back from the
  // editor (the shot stays selected and in view; on a tablet the details would cover the board).
  inspect: false,
  thumbs: new Map(), // shot id -> {key, canvas}
};

const save = saveIndicator();
$('save-slot').replaceWith(save.node);

// ---- start ----

async function start() {
  if (!projectId) {
    fail(t('storyboard.no-id'));
    return;
  }
  const user = await signedInUser((error) => fail(errorText(error)));
  if (!user) return;
  try {
    state.record = await api('/api/v1/storyboards/' + encodeURIComponent(projectId));
  } catch (error) {
    fail(error.status === 404 ? t('storyboard.not-found') : errorText(error));
    return;
  }
  showRecord();
  mountProjectTools($('project-tools'), state.record);
  const doc = new StoryDoc(projectId, { author: userId(user) });
  state.doc = doc;
  doc.addEventListener('save', (event) => save.set(event.detail.state));
  let scrolled = false;
  doc.addEventListener('ready', () => {
    document.body.dataset.ready = 'true';
    $('project').removeAttribute('aria-busy');
    // Back from the editor: the shot drawn last is in view (and selected), its details closed.
    const card = !scrolled && state.selected && document.querySelector(`.sb-shot[data-shot-id="${CSS.escape(state.selected)}"]`);
    if (card) card.scrollIntoView({ block: 'center' });
    scrolled = true;
  });
  doc.addEventListener('change', () => render());
  doc.addEventListener('editors', (event) => renderEditors(event.detail.editors));
  doc.addEventListener('dropped', (event) => toast(t('storyboard.not-saved', { reason: storyErrorText(event.detail) }), { kind: 'error' }));
  doc.addEventListener('fatal', (event) => toast(event.detail.code || event.detail.message ? storyErrorText(event.detail) : t('storyboard.cannot-open-this'), { kind: 'error', timeout: 0 }));
  doc.connect();
}

function fail(message) {
  $('project').replaceChildren(el('div', { class: 'empty-state sb-fail' }, [el('strong', { text: t('storyboard.cannot-open') }), message]));
}

// ---- the project's record (REST) ----

function showRecord() {
  const r = state.record;
  $('topbar-title').textContent = r.title;
  document.title = t('storyboard.document-title', { title: r.title });
  $('project-title').value = r.title;
  $('project-description').value = r.description || '';
  $('project-aspect').replaceChildren(...aspectOptions(r.aspectRatio || '16:9'));
  document.documentElement.style.setProperty('--sb-aspect', String(aspectValue(r.aspectRatio)));
}

async function patchRecord(body) {
  try {
    const updated = await api('/api/v1/storyboards/' + encodeURIComponent(projectId), { method: 'PATCH', body });
    const aspectChanged = updated.aspectRatio !== state.record.aspectRatio;
    state.record = { ...state.record, ...updated };
    $('topbar-title').textContent = state.record.title;
    document.title = t('storyboard.document-title', { title: state.record.title });
    if (aspectChanged) {
      state.thumbs.clear();
      cards.clear();
      render();
    }
  } catch (error) {
    toast(errorText(error), { kind: 'error' });
    showRecord();
  }
}

$('project-title').addEventListener('change', () => {
  const title = $('project-title').value.trim();
  if (!title) {
    $('project-title').value = state.record.title;
    return;
  }
  if (title !== state.record.title) patchRecord({ title });
});
$('project-description').addEventListener('change', () => {
  const description = $('project-description').value;
  if (description !== (state.record.description || '')) patchRecord({ description });
});
$('project-aspect').addEventListener('change', () => patchRecord({ aspectRatio: $('project-aspect').value }));

// ---- editors here now ----

function renderEditors(editors) {
  const you = state.doc && state.doc.you ? state.doc.you.editor : null;
  $('editors').replaceChildren(...(editors || []).map((e) => el('span', {
    class: 'sb-editor-dot' + (e.editor === you ? ' is-you' : ''),
    text: (e.name || '?').trim().charAt(0).toUpperCase(),
    attrs: { title: e.editor === you ? t('storyboard.you-name', { name: e.name || t('storyboard.someone') }) : e.name || t('storyboard.someone'), 'data-color': e.color || '' },
  })));
  for (const dot of $('editors').children) {
    if (dot.dataset.color) dot.style.setProperty('--who', dot.dataset.color);
  }
}

// ---- rendering ----

function thumbKey(shot) {
  let key = shot.background + '|' + (state.record.aspectRatio || '');
  for (const layer of shot.layers) {
    const last = layer.strokes.length ? layer.strokes[layer.strokes.length - 1].id : '';
    const t = layer.transform || {};
    key += '|' + layer.id + ':' + layer.visible + ':' + layer.opacity + ':' + layer.strokes.length + ':' + last
      + ':' + (t.x || 0) + ',' + (t.y || 0) + ',' + (t.scale || 1) + ',' + (t.rotation || 0);
  }
  return key;
}

const THUMB_W = 176;

// Thumbnails are drawn a few at a time (a frame's worth of work each), so a project of hundreds of
// shots shows its cards at once and fills them in; the card's data-drawn says when it is.
const toDraw = new Map(); // shot id -> shot
let drawing = 0;

function thumbnail(shot) {
  const key = thumbKey(shot);
  let entry = state.thumbs.get(shot.id);
  if (!entry || entry.key !== key) {
    const canvas = (entry && entry.canvas) || el('canvas', { class: 'sb-thumb-canvas', attrs: { 'aria-hidden': 'true' } });
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    const w = Math.round(THUMB_W * dpr);
    const h = Math.round((THUMB_W / aspectValue(state.record.aspectRatio)) * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    entry = { key, canvas };
    state.thumbs.set(shot.id, entry);
    toDraw.set(shot.id, shot);
    if (!drawing) drawing = requestAnimationFrame(drawSome);
  }
  return entry.canvas;
}

function drawSome() {
  drawing = 0;
  const until = performance.now() + 8;
  for (const [id, shot] of toDraw) {
    toDraw.delete(id);
    const entry = state.thumbs.get(id);
    if (entry) drawShot(entry.canvas, shot);
    if (performance.now() > until) break;
  }
  if (toDraw.size) drawing = requestAnimationFrame(drawSome);
  else document.body.dataset.thumbnails = 'drawn';
}

function sketchHref(shotId) {
  return '/sketch.html?id=' + encodeURIComponent(projectId) + '&shot=' + encodeURIComponent(shotId);
}

let renderLater = false;

function render() {
  const view = state.doc && state.doc.view;
  if (!view) return;
  if (drag && drag.active) {
    // Not under the pointer: the cards are drawn again once the drag ends.
    renderLater = true;
    return;
  }
  const focused = document.activeElement;
  const focusKey = focused && focused.dataset ? focused.dataset.focusKey : null;
  if (state.selected && !locateShot(view, state.selected)) state.selected = null;
  const scenes = view.scenes.map((scene, index) => sceneRow(scene, index, view.scenes.length));
  $('scenes').replaceChildren(...scenes);
  const shots = allShots(view);
  $('shot-count').textContent = t('storyboard.count', {
    scenes: t('storyboard.scenes-count', { count: view.scenes.length }),
    shots: t('storyboard.shots-count', { count: shots.length }),
    duration: durationText(shots.reduce((sum, s) => sum + Number(s.shot.duration || 0), 0)),
  });
  renderInspector(view);
  if (focusKey) {
    const again = document.querySelector('[data-focus-key="' + CSS.escape(focusKey) + '"]');
    if (again && again !== document.activeElement) again.focus({ preventScroll: true });
  }
  const live = new Set(shots.map((s) => s.shot.id));
  for (const id of state.thumbs.keys()) if (!live.has(id)) state.thumbs.delete(id);
  for (const id of cards.keys()) if (!live.has(id)) cards.delete(id);
}

function sceneRow(scene, index, count) {
  const title = el('h2', { class: 'sb-scene-title' }, [
    el('span', { class: 'sb-scene-index', text: t('storyboard.scene-n', { n: index + 1 }) }),
    el('span', { class: 'sb-scene-name', text: scene.title || t('storyboard.untitled-scene') }),
  ]);
  const tools = el('div', { class: 'sb-scene-tools' }, [
    iconButton('edit', t('storyboard.rename'), {
      cls: 'btn btn-sm', showLabel: false,
      attrs: { 'data-action': 'rename-scene', 'aria-label': t('storyboard.rename-scene-n', { n: index + 1 }), 'data-focus-key': 'rename:' + scene.id },
      on: { click: () => renameScene(scene) },
    }),
    iconButton('chevronUp', t('storyboard.scene-up'), {
      cls: 'btn btn-sm', showLabel: false,
      attrs: { 'data-action': 'scene-up', disabled: index === 0, 'data-focus-key': 'up:' + scene.id },
      on: { click: () => state.doc.edit({ op: 'moveScene', scene: scene.id, index: index - 1 }) },
    }),
    iconButton('chevronDown', t('storyboard.scene-down'), {
      cls: 'btn btn-sm', showLabel: false,
      attrs: { 'data-action': 'scene-down', disabled: index === count - 1, 'data-focus-key': 'down:' + scene.id },
      on: { click: () => state.doc.edit({ op: 'moveScene', scene: scene.id, index: index + 1 }) },
    }),
    iconButton('trash', t('storyboard.delete-scene'), {
      cls: 'btn btn-sm', showLabel: false,
      attrs: { 'data-action': 'delete-scene', 'aria-label': t('storyboard.delete-scene-n', { n: index + 1 }), 'data-focus-key': 'delete:' + scene.id },
      on: { click: () => deleteScene(scene, index) },
    }),
  ]);
  const list = el('ol', { class: 'sb-shots', attrs: { 'aria-label': t('storyboard.shots-of-scene', { n: index + 1 }), 'data-scene-id': scene.id } },
    scene.shots.map((shot, i) => shotCard(shot, scene, i)));
  const add = el('li', { class: 'sb-add-shot' }, [
    iconButton('plus', t('storyboard.add-shot'), {
      cls: 'btn sb-add-shot-btn',
      attrs: { 'data-action': 'add-shot', 'aria-label': t('storyboard.add-shot-to', { n: index + 1 }), 'data-focus-key': 'add:' + scene.id },
      on: { click: () => addShot(scene) },
    }),
  ]);
  list.append(add);
  return el('li', { class: 'sb-scene', attrs: { 'data-scene-id': scene.id, 'data-title': scene.title } }, [
    el('div', { class: 'sb-scene-head' }, [title, tools]), list,
  ]);
}

const cards = new Map(); // shot id -> {key, node}: a card that did not change is kept, not drawn again

function shotCard(shot, scene, index) {
  const selected = shot.id === state.selected;
  const key = [selected, shot.number, shot.duration, shot.action, shot.dialogue, scene.id, index, thumbKey(shot)].join('|');
  const kept = cards.get(shot.id);
  if (kept && kept.key === key) return kept.node;
  // The list's item holds the card (a button): a list may hold only items, and an item that is a
  // button is no longer an item to a screen reader.
  // Beside the card, not in it (a button in a button): one tap on the pen opens the shot in the editor.
  const open = el('a', {
    class: 'sb-open-shot',
    attrs: { href: sketchHref(shot.id), 'data-action': 'open-shot-editor', 'aria-label': t('storyboard.open-shot-named', { number: shot.number || '' }), title: t('storyboard.open-shot') },
  }, [icon('pen', 18)]);
  const item = el('li', { class: 'sb-shot-item' }, [makeCard(shot, scene, index, selected), open]);
  cards.set(shot.id, { key, node: item });
  return item;
}

function makeCard(shot, scene, index, selected) {
  const frame = el('div', { class: 'sb-thumb' }, [thumbnail(shot)]);
  const number = el('span', { class: 'sb-shot-number', text: shot.number || '–' });
  const meta = el('div', { class: 'sb-shot-meta' }, [
    number,
    el('span', { class: 'sb-shot-duration', text: durationText(shot.duration) }),
  ]);
  const caption = shot.action || shot.dialogue;
  const grip = el('span', { class: 'sb-grip', attrs: { 'aria-hidden': 'true', title: t('storyboard.drag-to-move') } }, [icon('move', 16)]);
  const card = el('div', {
    class: 'sb-shot' + (selected ? ' is-selected' : ''),
    attrs: {
      tabindex: '0', role: 'button', 'aria-pressed': selected ? 'true' : 'false',
      'aria-label': caption
        ? t('storyboard.shot-label-caption', { number: shot.number || '', duration: durationText(shot.duration), caption })
        : t('storyboard.shot-label', { number: shot.number || '', duration: durationText(shot.duration) }),
      'aria-keyshortcuts': 'Enter Alt+ArrowLeft Alt+ArrowRight Alt+ArrowUp Alt+ArrowDown',
      'data-shot-id': shot.id, 'data-number': shot.number || '', 'data-scene-id': scene.id, 'data-index': index,
      'data-strokes': strokeCount(shot), 'data-focus-key': 'shot:' + shot.id,
    },
  }, [frame, meta, caption ? el('p', { class: 'sb-shot-caption', text: caption }) : null, grip]);
  card.addEventListener('click', () => select(shot.id));
  card.addEventListener('dblclick', () => location.assign(sketchHref(shot.id)));
  card.addEventListener('keydown', (event) => onCardKey(event, shot));
  card.addEventListener('pointerdown', (event) => startDrag(event, card, shot));
  return card;
}

function select(shotId) {
  state.selected = shotId;
  state.inspect = true;
  const url = new URL(location.href);
  url.searchParams.set('shot', shotId);
  history.replaceState(null, '', url);
  render();
}

// ---- the inspector: the selected shot's fields ----

function renderInspector(view) {
  const panel = $('inspector');
  const found = state.selected && state.inspect ? locateShot(view, state.selected) : null;
  if (!found) {
    panel.hidden = true;
    panel.replaceChildren();
    panel.dataset.shotId = '';
    return;
  }
  const { shot } = found;
  panel.hidden = false;
  if (panel.dataset.shotId === shot.id) {
    // The same shot: refresh the values, except in the field being typed in.
    for (const field of panel.querySelectorAll('[data-field]')) {
      if (field === document.activeElement) continue;
      const value = field.dataset.field === 'duration' ? String(shot.duration) : shot[field.dataset.field] ?? '';
      if (field.value !== value) field.value = value;
    }
    panel.querySelector('.sb-inspector-number').textContent = t('storyboard.shot-in-scene', { number: shot.number || '', scene: found.sceneIndex + 1 });
    return;
  }
  panel.dataset.shotId = shot.id;
  const field = (name, label, node) => el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), node]);
  const text = (name, rows) => {
    const area = el('textarea', { class: 'input', attrs: { rows, maxlength: 5000, 'data-field': name, id: 'shot-' + name } });
    area.value = shot[name] || '';
    area.addEventListener('change', () => update({ [name]: area.value }));
    return area;
  };
  const duration = el('input', {
    class: 'input', attrs: { type: 'number', min: '0.1', max: '600', step: '0.1', 'data-field': 'duration', id: 'shot-duration', inputmode: 'decimal' },
  });
  duration.value = String(shot.duration);
  duration.addEventListener('change', () => {
    if (duration.value.trim() === '') return; // being retyped: the value comes with the next change
    const value = Number(duration.value);
    if (!(value >= 0.1 && value <= 600)) {
      toast(t('storyboard.duration-range'), { kind: 'error' });
      duration.value = String(shot.duration);
      return;
    }
    update({ duration: Math.round(value * 10) / 10 });
  });
  const background = el('input', { class: 'sb-color-input', attrs: { type: 'color', 'data-field': 'background', id: 'shot-background' } });
  background.value = shot.background || '#ffffff';
  background.addEventListener('change', () => update({ background: background.value }));
  const shotId = shot.id;
  function update(changes) {
    state.doc.edit({ op: 'updateShot', shot: shotId, ...changes });
  }
  panel.replaceChildren(
    el('div', { class: 'sb-inspector-head' }, [
      el('h2', { class: 'sb-inspector-number', text: t('storyboard.shot-in-scene', { number: shot.number || '', scene: found.sceneIndex + 1 }) }),
      iconButton('x', t('storyboard.close'), { cls: 'mini-btn', showLabel: false, attrs: { 'data-action': 'close-inspector' }, on: { click: () => { state.selected = null; state.inspect = false; render(); } } }),
    ]),
    el('a', { class: 'btn btn-primary btn-block', attrs: { href: sketchHref(shot.id), 'data-action': 'open-shot' } }, [icon('pen', 18), el('span', { text: t('storyboard.open-editor') })]),
    el('div', { class: 'sb-inspector-row' }, [
      field('duration', t('storyboard.duration-s'), duration),
      field('background', t('storyboard.background'), background),
    ]),
    field('dialogue', t('storyboard.dialogue'), text('dialogue', 3)),
    field('action', t('storyboard.action'), text('action', 3)),
    field('notes', t('storyboard.notes'), text('notes', 3)),
    el('div', { class: 'sb-inspector-actions' }, [
      iconButton('copy', t('storyboard.duplicate'), { cls: 'btn btn-sm', attrs: { 'data-action': 'duplicate-shot' }, on: { click: () => duplicateShot(shotId) } }),
      iconButton('move', t('storyboard.move-to'), { cls: 'btn btn-sm', attrs: { 'data-action': 'move-shot' }, on: { click: () => moveDialog(shotId) } }),
      iconButton('clock', t('storyboard.history'), { cls: 'btn btn-sm', attrs: { 'data-action': 'shot-history' }, on: { click: () => openShotHistory(state.record, shotId, state.doc) } }),
      iconButton('trash', t('storyboard.delete'), { cls: 'btn btn-sm', attrs: { 'data-action': 'delete-shot' }, on: { click: () => deleteShot(shotId) } }),
    ]),
  );
}

// ---- actions ----

async function addScene() {
  const view = state.doc && state.doc.view;
  if (!view) return;
  const title = await promptDialog({ title: t('storyboard.new-scene'), label: t('storyboard.scene-title'), value: t('storyboard.scene-n', { n: view.scenes.length + 1 }), confirmLabel: t('storyboard.add') });
  if (!title) return;
  const sceneId = newId('c');
  state.doc.edit({ op: 'addScene', scene: sceneId, title });
  // A scene starts with one empty shot, ready to draw.
  state.doc.edit({ op: 'addShot', scene: sceneId, shot: emptyShot() });
}

async function renameScene(scene) {
  const title = await promptDialog({ title: t('storyboard.rename-scene'), label: t('storyboard.scene-title'), value: scene.title, confirmLabel: t('storyboard.save') });
  if (!title || title === scene.title) return;
  state.doc.edit({ op: 'renameScene', scene: scene.id, title });
}

async function deleteScene(scene, index) {
  const count = scene.shots.length;
  const sure = await confirmDialog({
    title: t('storyboard.delete-scene-title', { n: index + 1 }),
    message: t('storyboard.delete-scene-message', { title: scene.title || t('storyboard.untitled-scene'), count }),
    confirmLabel: t('storyboard.delete'), danger: true,
  });
  if (sure) state.doc.edit({ op: 'deleteScene', scene: scene.id });
}

function addShot(scene) {
  const shot = emptyShot();
  if (state.doc.edit({ op: 'addShot', scene: scene.id, shot })) select(shot.id);
}

function duplicateShot(shotId) {
  const newShot = newId('s');
  if (state.doc.edit({ op: 'duplicateShot', shot: shotId, newShot })) select(newShot);
}

async function deleteShot(shotId) {
  const found = locateShot(state.doc.view, shotId);
  if (!found) return;
  const sure = await confirmDialog({
    title: t('storyboard.delete-shot-title', { number: found.shot.number || '' }), message: t('storyboard.delete-shot-message'),
    confirmLabel: t('storyboard.delete'), danger: true,
  });
  if (sure) state.doc.edit({ op: 'deleteShot', shot: shotId });
}

function moveShot(shotId, sceneId, index) {
  state.doc.edit({ op: 'moveShot', shot: shotId, scene: sceneId, index: Math.max(0, index) });
}

/** Alt+arrows: left/right within the scene, up/down to the end of the previous / start of the next. */
function onCardKey(event, shot) {
  if (event.key === 'Enter' && !event.altKey) {
    event.preventDefault();
    if (event.target.closest('.sb-shot')) location.assign(sketchHref(shot.id));
    return;
  }
  if (event.key === ' ') {
    event.preventDefault();
    select(shot.id);
    return;
  }
  if (event.key === 'Delete') {
    event.preventDefault();
    deleteShot(shot.id);
    return;
  }
  const view = state.doc.view;
  const found = locateShot(view, shot.id);
  if (!found) return;
  const scenes = view.scenes;
  if (!event.altKey) {
    const cards = [...document.querySelectorAll('.sb-shot')];
    const at = cards.findIndex((c) => c.dataset.shotId === shot.id);
    const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    if (step && cards[at + step]) {
      event.preventDefault();
      cards[at + step].focus();
    }
    return;
  }
  let target = null;
  if (event.key === 'ArrowLeft' && found.index > 0) target = [found.scene.id, found.index - 1];
  else if (event.key === 'ArrowRight' && found.index < found.scene.shots.length - 1) target = [found.scene.id, found.index + 1];
  else if (event.key === 'ArrowUp' && found.sceneIndex > 0) target = [scenes[found.sceneIndex - 1].id, scenes[found.sceneIndex - 1].shots.length];
  else if (event.key === 'ArrowDown' && found.sceneIndex < scenes.length - 1) target = [scenes[found.sceneIndex + 1].id, 0];
  if (!target) return;
  event.preventDefault();
  moveShot(shot.id, target[0], target[1]);
  const again = document.querySelector('.sb-shot[data-shot-id="' + CSS.escape(shot.id) + '"]');
  if (again) again.focus();
}

/** "Move to…": a scene and a place in it. */
function moveDialog(shotId) {
  const view = state.doc.view;
  const found = locateShot(view, shotId);
  if (!found) return;
  const sceneSelect = el('select', { class: 'input', attrs: { id: 'move-scene', 'aria-label': t('storyboard.scene') } },
    view.scenes.map((s, i) => el('option', { text: t('storyboard.scene-option', { n: i + 1, title: s.title || t('storyboard.untitled') }), attrs: { value: s.id, selected: s.id === found.scene.id } })));
  const placeSelect = el('select', { class: 'input', attrs: { id: 'move-place', 'aria-label': t('storyboard.place') } });
  const fillPlaces = () => {
    const scene = view.scenes.find((s) => s.id === sceneSelect.value);
    const others = scene.shots.filter((s) => s.id !== shotId);
    const options = others.map((s, i) => el('option', { text: t('storyboard.before-shot', { number: s.number || i + 1 }), attrs: { value: String(i) } }));
    options.push(el('option', { text: t('storyboard.at-the-end'), attrs: { value: String(others.length) } }));
    placeSelect.replaceChildren(...options);
    placeSelect.value = scene.id === found.scene.id ? String(found.index) : String(others.length);
  };
  sceneSelect.addEventListener('change', fillPlaces);
  fillPlaces();
  const cancel = el('button', { class: 'btn', text: t('storyboard.cancel'), attrs: { type: 'button' } });
  const ok = el('button', { class: 'btn btn-primary', text: t('storyboard.move'), attrs: { type: 'submit', 'data-role': 'confirm' } });
  const { dialog, content } = modalDialog({
    title: t('storyboard.move-shot-title', { number: found.shot.number || '' }), form: true,
    body: [
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('storyboard.scene') }), sceneSelect]),
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('storyboard.place') }), placeSelect]),
    ],
    actions: [cancel, ok],
  });
  cancel.addEventListener('click', () => dialog.close());
  content.addEventListener('submit', (event) => {
    event.preventDefault();
    moveShot(shotId, sceneSelect.value, Number(placeSelect.value));
    dialog.close();
  });
  sceneSelect.focus();
}

// ---- dragging shots (pointer events: mouse and pen anywhere on the card, touch by the grip) ----

const DRAG_SLOP = 6;
let drag = null;

function startDrag(event, card, shot) {
  if (event.button !== 0 || event.target.closest('button, a, input, textarea, select')) return;
  if (event.pointerType === 'touch' && !event.target.closest('.sb-grip')) return;
  drag = { card, shot, pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, active: false, ghost: null, target: null };
  card.setPointerCapture(event.pointerId);
  card.addEventListener('pointermove', onDragMove);
  card.addEventListener('pointerup', onDragEnd);
  card.addEventListener('pointercancel', onDragCancel);
  if (event.pointerType === 'touch') event.preventDefault();
}

function onDragMove(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const dx = event.clientX - drag.x0;
  const dy = event.clientY - drag.y0;
  if (!drag.active) {
    if (Math.hypot(dx, dy) < DRAG_SLOP) return;
    drag.active = true;
    const box = drag.card.getBoundingClientRect();
    drag.offset = { x: drag.x0 - box.left, y: drag.y0 - box.top };
    drag.ghost = drag.card.cloneNode(true);
    drag.ghost.classList.add('sb-ghost');
    drag.ghost.removeAttribute('data-shot-id');
    drag.ghost.setAttribute('aria-hidden', 'true');
    const thumb = drag.ghost.querySelector('canvas');
    if (thumb) thumb.getContext('2d').drawImage(drag.card.querySelector('canvas'), 0, 0);
    drag.ghost.style.width = box.width + 'px';
    document.body.append(drag.ghost);
    drag.card.classList.add('is-dragging');
    document.body.classList.add('sb-dragging');
  }
  drag.ghost.style.transform = 'translate(' + (event.clientX - drag.offset.x) + 'px,' + (event.clientY - drag.offset.y) + 'px)';
  drag.target = dropTarget(event.clientX, event.clientY);
  showMarker(drag.target);
}

/** Where a shot dropped at (x, y) goes: {scene, index, marker rect}. */
function dropTarget(x, y) {
  const lists = [...document.querySelectorAll('.sb-shots')];
  let best = null;
  for (const list of lists) {
    const box = list.getBoundingClientRect();
    const dy = y < box.top ? box.top - y : y > box.bottom ? y - box.bottom : 0;
    if (!best || dy < best.dy) best = { list, dy };
  }
  if (!best) return null;
  const list = best.list;
  const cards = [...list.querySelectorAll('.sb-shot')].filter((c) => c !== drag.card);
  let index = cards.length;
  for (let i = 0; i < cards.length; i += 1) {
    const r = cards[i].getBoundingClientRect();
    if (y < r.top) { index = i; break; }
    if (y <= r.bottom && x < r.left + r.width / 2) { index = i; break; }
  }
  const anchor = cards[index] || list.querySelector('.sb-add-shot');
  const r = anchor.getBoundingClientRect();
  return { scene: list.dataset.sceneId, index, rect: { left: r.left - 8, top: r.top, height: r.height } };
}

function showMarker(target) {
  const marker = $('drop-marker');
  if (!target) {
    marker.hidden = true;
    return;
  }
  marker.hidden = false;
  marker.style.transform = 'translate(' + target.rect.left + 'px,' + target.rect.top + 'px)';
  marker.style.height = target.rect.height + 'px';
}

function endDrag() {
  if (!drag) return;
  drag.card.removeEventListener('pointermove', onDragMove);
  drag.card.removeEventListener('pointerup', onDragEnd);
  drag.card.removeEventListener('pointercancel', onDragCancel);
  if (drag.ghost) drag.ghost.remove();
  drag.card.classList.remove('is-dragging');
  document.body.classList.remove('sb-dragging');
  $('drop-marker').hidden = true;
  const done = drag;
  drag = null;
  if (renderLater) {
    renderLater = false;
    render();
  }
  return done;
}

function onDragEnd(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const done = endDrag();
  if (done.active && done.target) {
    // Dragged: a click does not follow as a selection.
    const swallow = (e) => { e.stopPropagation(); e.preventDefault(); };
    window.addEventListener('click', swallow, { capture: true, once: true });
    setTimeout(() => window.removeEventListener('click', swallow, { capture: true }), 0);
    const found = locateShot(state.doc.view, done.shot.id);
    if (found && (found.scene.id !== done.target.scene || found.index !== done.target.index)) {
      moveShot(done.shot.id, done.target.scene, done.target.index);
    }
  }
}

function onDragCancel() {
  endDrag();
}

window.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && drag) {
    drag.target = null;
    endDrag();
  }
  if (isTyping(event) || dialogOpen()) return;
  if ((event.key === 'z' || event.key === 'Z') && (event.ctrlKey || event.metaKey) && state.doc) {
    event.preventDefault();
    if (event.shiftKey) state.doc.redo();
    else state.doc.undo();
  }
});

$('add-scene').addEventListener('click', addScene);
$('renumber').addEventListener('click', () => state.doc && state.doc.edit({ op: 'renumberShots' }));

startPage(start);
