// The shot editor's side panel: the layers (layers.js), the onion skin (how many shots before and
// after, and how strongly), the shot's fields and its history (history.js).

import { t } from '../core/i18n.js';
import { el, iconButton } from '../core/ui.js';
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
  const before = el('select', { class: 'input', attrs: { id: 'onion-before', 'aria-label': t('storyboard.onion.shots-before') } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.before } })));
  const after = el('select', { class: 'input', attrs: { id: 'onion-after', 'aria-label': t('storyboard.onion.shots-after') } },
    [0, 1, 2, 3].map((n) => el('option', { text: String(n), attrs: { value: String(n), selected: n === state.onion.after } })));
  const opacity = el('input', { class: 'sk-onion-opacity', attrs: { type: 'range', min: '0.05', max: '1', step: '0.05', id: 'onion-opacity', 'aria-label': t('storyboard.onion.opacity-label') } });
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
    el('div', { class: 'sk-section-head' }, [el('h2', { text: t('storyboard.onion.title'), attrs: { id: 'onion-title' } })]),
    el('div', { class: 'sk-row' }, [
      el('label', { class: 'sk-onion-prev' }, [t('storyboard.onion.before'), before]),
      el('label', { class: 'sk-onion-next' }, [t('storyboard.onion.after'), after]),
    ]),
    el('div', { class: 'sk-row' }, [el('label', { attrs: { for: 'onion-opacity' }, text: t('storyboard.opacity') }), opacity]),
  ]);
  const shotSection = el('section', { class: 'sk-section', attrs: { 'aria-labelledby': 'shot-fields-title', id: 'shot-fields' } }, [
    el('div', { class: 'sk-section-head' }, [el('h2', { text: t('storyboard.shot'), attrs: { id: 'shot-fields-title' } })]),
  ]);
  const field = (name, label, node) => el('label', { class: 'sk-field' }, [label, node]);
  const bg = el('input', { class: 'sk-color-input', attrs: { type: 'color', id: 'shot-background', 'data-field': 'background', 'aria-label': t('storyboard.background-colour') } });
  bg.addEventListener('change', () => edit({ op: 'updateShot', shot: state.shotId, background: bg.value }));
  const duration = el('input', { class: 'input', attrs: { type: 'number', min: '0.1', max: '600', step: '0.1', id: 'shot-duration', 'data-field': 'duration', inputmode: 'decimal' } });
  duration.addEventListener('change', () => {
    if (duration.value.trim() === '') return; // being retyped: the value comes with the next change
    const value = Number(duration.value);
    const shot = currentShot();
    if (!(value >= 0.1 && value <= 600)) {
      flash(t('storyboard.duration-range'));
      if (shot) duration.value = String(shot.duration);
      return;
    }
    edit({ op: 'updateShot', shot: state.shotId, duration: Math.round(value * 10) / 10 });
  });
  shotSection.append(el('div', { class: 'sk-row' }, [field('duration', t('storyboard.duration-s'), duration), field('background', t('storyboard.background'), bg)]));
  for (const [name, label] of [['dialogue', t('storyboard.dialogue')], ['action', t('storyboard.action')], ['notes', t('storyboard.notes')]]) {
    const area = el('textarea', { class: 'input', attrs: { rows: 2, maxlength: 5000, id: 'shot-' + name, 'data-field': name } });
    area.addEventListener('change', () => edit({ op: 'updateShot', shot: state.shotId, [name]: area.value }));
    shotSection.append(field(name, label, area));
  }
  shotSection.append(el('div', { class: 'sk-row' }, [
    iconButton('clock', t('storyboard.earlier-versions'), { cls: 'btn btn-sm', attrs: { 'data-action': 'shot-history' }, on: { click: () => state.record && state.shotId && openShotHistory(state.record, state.shotId, state.doc) } }),
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
