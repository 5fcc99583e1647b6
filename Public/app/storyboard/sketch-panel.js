// The shot editor's side panel: the layers (layers.js), the onion skin (how many shots before and
// after, and how strongly), the shot's fields and its history (history.js).

import { el, iconButton } from '../ui.js';
import { LayersPanel } from './layers.js';
import { openShotHistory } from './history.js';
import { $, state, hooks, edit, flash, remember, currentShot } from './sketch-context.js';
import { setTool } from './sketch-rail.js';

// ---- the panel: layers, onion skin, the shot's fields ----

const panel = $('panel');
export const layers = new LayersPanel({
  edit: (e) => edit(e),
  shotId: () => state.shotId,
  select: (id) => {
    state.layerId = id;
    state.selection = null;
    hooks.refresh();
  },
  transformMode: () => state.tool === 'transform',
  toggleTransform: () => setTool(state.tool === 'transform' ? state.previousTool || 'pen' : 'transform'),
});

export function buildPanel() {
  const before = el('select', { class: 'input', attrs: { id: 'onion-before', 'aria-label': 'Shots before' } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.before } })));
  const after = el('select', { class: 'input', attrs: { id: 'onion-after', 'aria-label': 'Shots after' } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.after } })));
  const opacity = el('input', { class: 'sk-onion-opacity', attrs: { type: 'range', min: '0.05', max: '1', step: '0.05', id: 'onion-opacity', 'aria-label': 'Onion skin opacity' } });
  opacity.value = String(state.onion.opacity);
  const onOnion = () => {
    state.onion = { before: Number(before.value), after: Number(after.value), opacity: Number(opacity.value) };
    remember();
    hooks.composeFrame();
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
    iconButton('clock', 'Earlier versions', { cls: 'btn btn-sm', attrs: { 'data-action': 'shot-history' }, on: { click: () => state.record && state.shotId && openShotHistory(state.record, state.shotId, state.doc) } }),
  ]));
  panel.append(layers.node, onion, shotSection);
}

export function renderShotFields(shot) {
  for (const field of panel.querySelectorAll('#shot-fields [data-field]')) {
    if (field === document.activeElement) continue;
    const name = field.dataset.field;
    const value = name === 'duration' ? String(shot.duration) : name === 'background' ? shot.background || '#ffffff' : shot[name] || '';
    if (field.value !== value) field.value = value;
  }
}
