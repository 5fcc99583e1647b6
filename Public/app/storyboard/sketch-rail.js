// The shot editor's tool rail: tools, the palette, a colour input and recent colours, widths,
// undo and redo; and the view's zoom buttons.

import { formatNumber, t } from '../i18n.js';
import { el, iconButton } from '../ui.js';
import { clampWidth } from './geometry.js';
import { $, state, stage, renderer, hooks, remember, DEFAULT_WIDTH } from './sketch-context.js';

export const PALETTE = ['#111111', '#ffffff', '#e53935', '#fb8c00', '#fdd835', '#43a047', '#1e88e5', '#8e24aa'];
export const TOOLS = [
  { tool: 'pen', key: 'B', icon: 'pen' },
  { tool: 'marker', key: 'M', icon: 'highlighter' },
  { tool: 'pencil', key: 'P', icon: 'edit' },
  { tool: 'eraser', key: 'E', icon: 'eraser' },
  { tool: 'split', key: 'Shift+E', icon: 'x' },
  { tool: 'lasso', key: 'L', icon: 'square' },
  { tool: 'ruler', key: 'U', icon: 'minus' },
  { tool: 'transform', key: 'T', icon: 'move' },
  { tool: 'view', key: 'H', icon: 'hand' },
];
// ---- the tool rail ----

const toolButtons = new Map();

export function buildTools() {
  const rail = $('tools');
  for (const item of TOOLS) {
    const button = iconButton(item.icon, t('storyboard.tool-with-key', { tool: t('storyboard.tool.' + item.tool), key: item.key }), {
      cls: 'btn btn-icon sk-tool', showLabel: false,
      attrs: { 'data-tool': item.tool, 'aria-pressed': 'false', 'aria-keyshortcuts': item.key },
      on: { click: () => setTool(item.tool) },
    });
    toolButtons.set(item.tool, button);
    rail.append(button);
  }
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  for (const color of PALETTE) rail.append(swatch(color, 'palette'));
  const input = el('input', { class: 'sk-color-input', attrs: { type: 'color', id: 'color-input', 'aria-label': t('storyboard.choose-colour'), title: t('storyboard.choose-colour') } });
  input.value = state.color;
  input.addEventListener('change', () => setColor(input.value));
  rail.append(input);
  rail.append(el('div', { class: 'sk-recent', attrs: { id: 'recent-colors', role: 'group', 'aria-label': t('storyboard.recent-colours') } }));
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  rail.append(
    iconButton('minus', t('storyboard.thinner'), { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thinner', 'aria-keyshortcuts': '[' }, on: { click: () => changeWidth(1 / 1.25) } }),
    iconButton('plus', t('storyboard.thicker'), { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thicker', 'aria-keyshortcuts': ']' }, on: { click: () => changeWidth(1.25) } }),
    el('div', { class: 'sk-width', attrs: { id: 'width-preview', 'aria-live': 'polite' } }),
  );
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  rail.append(
    iconButton('undo', t('storyboard.undo'), { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'undo', 'aria-keyshortcuts': 'Control+Z' }, on: { click: () => state.doc && state.doc.undo() } }),
    iconButton('undo', t('storyboard.redo'), { cls: 'btn btn-icon sk-redo', showLabel: false, attrs: { 'data-action': 'redo', 'aria-keyshortcuts': 'Control+Shift+Z' }, on: { click: () => state.doc && state.doc.redo() } }),
  );
  const vt = $('view-tools');
  vt.append(
    iconButton('minus', t('storyboard.zoom-out'), { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-out' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom / 1.25 }) } }),
    el('span', { class: 'sk-zoom', attrs: { id: 'zoom-level' }, text: formatNumber(1, { style: 'percent' }) }),
    iconButton('plus', t('storyboard.zoom-in'), { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-in' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom * 1.25 }) } }),
    iconButton('zoom-reset', t('storyboard.reset-view'), { cls: 'btn', showLabel: false, attrs: { 'data-action': 'reset-view' }, on: { click: () => renderer.resetView() } }),
  );
  renderTools();
}

function swatch(color, kind) {
  return el('button', {
    class: 'sk-swatch', attrs: { type: 'button', 'aria-label': t('storyboard.colour', { color }), title: color, 'data-color': color, 'data-kind': kind, 'aria-pressed': 'false' },
    on: { click: () => setColor(color) },
  });
}

export function setTool(tool) {
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
  hooks.refresh();
}

export function setColor(color) {
  state.color = color.toLowerCase();
  if (!PALETTE.includes(state.color)) state.recent = [state.color, ...state.recent.filter((c) => c !== state.color)].slice(0, 5);
  if (['eraser', 'split', 'lasso', 'ruler', 'transform'].includes(state.tool)) setTool('pen');
  remember();
  renderTools();
}

function widthTool() {
  return DEFAULT_WIDTH[state.tool] ? state.tool : 'pen';
}

export function changeWidth(factor) {
  const tool = widthTool();
  state.widths[tool] = clampWidth(state.widths[tool] * factor);
  remember();
  renderTools();
}

export function renderTools() {
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
  const width = formatNumber(w, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  preview.replaceChildren(dot, el('span', { class: 'sk-width-value', text: width }));
  preview.title = t('storyboard.width-title', { width });
  preview.dataset.width = String(w);
}
