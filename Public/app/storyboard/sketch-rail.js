// The shot editor's tool rail: tools, the palette, a colour input and recent colours, widths,
// undo and redo; and the view's zoom buttons.

import { formatNumber, t } from '../core/i18n.js';
import { el, iconButton } from '../core/ui.js';
import { clampWidth, MIN_WIDTH, MAX_WIDTH } from './geometry.js';
import { TOOL_ALPHA } from './freehand.js';
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
//
// In groups (tools with undo and redo, colours, width), so that on a tablet held upright the rail
// can dock under the canvas as two rows. Every tool and action button carries its short name
// (`.sk-label`), shown where there is no hover (touch screens, tablet widths); icon-only buttons
// (swatches, zoom) say their name on a long press (`#tool-tip`).

const toolButtons = new Map();

function labelled(button, text) {
  button.append(el('span', { class: 'sk-label', text, attrs: { 'aria-hidden': 'true' } }));
  return button;
}

const LOG_MIN = Math.log(MIN_WIDTH);
const LOG_MAX = Math.log(MAX_WIDTH);
const sliderOf = (w) => String(Math.round(((Math.log(w) - LOG_MIN) / (LOG_MAX - LOG_MIN)) * 1000));
const widthOf = (v) => Math.exp(LOG_MIN + (Number(v) / 1000) * (LOG_MAX - LOG_MIN));

export function buildTools() {
  const rail = $('tools');
  const tools = el('div', { class: 'sk-group sk-group-tools', attrs: { role: 'group' } });
  for (const item of TOOLS) {
    const button = labelled(iconButton(item.icon, t('storyboard.tool-with-key', { tool: t('storyboard.tool.' + item.tool), key: item.key }), {
      cls: 'btn btn-icon sk-tool', showLabel: false,
      attrs: { 'data-tool': item.tool, 'aria-pressed': 'false', 'aria-keyshortcuts': item.key },
      on: { click: () => setTool(item.tool) },
    }), t('storyboard.tool-short.' + item.tool));
    toolButtons.set(item.tool, button);
    tools.append(button);
  }
  tools.append(
    labelled(iconButton('undo', t('storyboard.undo'), { cls: 'btn btn-icon sk-tool sk-history', showLabel: false, attrs: { 'data-action': 'undo', 'aria-keyshortcuts': 'Control+Z' }, on: { click: () => state.doc && state.doc.undo() } }), t('storyboard.short.undo')),
    labelled(iconButton('undo', t('storyboard.redo'), { cls: 'btn btn-icon sk-tool sk-history sk-redo', showLabel: false, attrs: { 'data-action': 'redo', 'aria-keyshortcuts': 'Control+Shift+Z' }, on: { click: () => state.doc && state.doc.redo() } }), t('storyboard.short.redo')),
  );
  rail.append(tools);
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  const colors = el('div', { class: 'sk-group sk-group-colors', attrs: { role: 'group', 'aria-label': t('storyboard.choose-colour') } });
  for (const color of PALETTE) colors.append(swatch(color, 'palette'));
  const input = el('input', { class: 'sk-color-input', attrs: { type: 'color', id: 'color-input', 'aria-label': t('storyboard.choose-colour'), title: t('storyboard.choose-colour') } });
  input.value = state.color;
  input.addEventListener('change', () => setColor(input.value));
  colors.append(input);
  colors.append(el('div', { class: 'sk-recent', attrs: { id: 'recent-colors', role: 'group', 'aria-label': t('storyboard.recent-colours') } }));
  rail.append(colors);
  rail.append(el('span', { class: 'sk-sep', attrs: { 'aria-hidden': 'true' } }));
  const slider = el('input', { class: 'sk-width-slider', attrs: { type: 'range', id: 'width-slider', min: '0', max: '1000', step: '1', 'aria-label': t('storyboard.brush-size') } });
  slider.addEventListener('input', () => setWidth(widthOf(slider.value)));
  slider.addEventListener('change', () => hideBrushPreview());
  slider.addEventListener('pointerup', () => hideBrushPreview());
  rail.append(el('div', { class: 'sk-group sk-group-width', attrs: { role: 'group', 'aria-label': t('storyboard.brush-size') } }, [
    iconButton('minus', t('storyboard.thinner'), { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thinner', 'aria-keyshortcuts': '[' }, on: { click: () => changeWidth(1 / 1.25) } }),
    slider,
    iconButton('plus', t('storyboard.thicker'), { cls: 'btn btn-icon', showLabel: false, attrs: { 'data-action': 'thicker', 'aria-keyshortcuts': ']' }, on: { click: () => changeWidth(1.25) } }),
    el('div', { class: 'sk-width', attrs: { id: 'width-preview', 'aria-live': 'polite' } }),
  ]));
  const vt = $('view-tools');
  vt.append(
    iconButton('minus', t('storyboard.zoom-out'), { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-out' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom / 1.25 }) } }),
    // The zoom level is the reset button (its own corner icon looked like full screen's).
    el('button', {
      class: 'btn sk-zoom', text: formatNumber(1, { style: 'percent' }),
      attrs: { type: 'button', id: 'zoom-level', 'data-action': 'reset-view', title: t('storyboard.reset-view'), 'aria-label': t('storyboard.reset-view-at', { zoom: formatNumber(1, { style: 'percent' }) }) },
      on: { click: () => renderer.resetView() },
    }),
    iconButton('plus', t('storyboard.zoom-in'), { cls: 'btn', showLabel: false, attrs: { 'data-action': 'zoom-in' }, on: { click: () => renderer.setView({ zoom: renderer.view.zoom * 1.25 }) } }),
  );
  for (const holder of [rail, vt]) longPressNames(holder);
  renderTools();
}

// ---- a long press says what a button is (touch screens have no hover) ----

const LONG_PRESS_MS = 450;

function longPressNames(holder) {
  let timer = 0;
  let shown = false;
  const tip = $('tool-tip');
  const hide = () => {
    clearTimeout(timer);
    if (shown) setTimeout(() => { tip.hidden = true; }, 900);
    shown = false;
  };
  holder.addEventListener('pointerdown', (event) => {
    if (event.pointerType === 'mouse') return;
    const button = event.target instanceof Element ? event.target.closest('button[aria-label], input[aria-label]') : null;
    if (!button) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      shown = true;
      tip.textContent = button.getAttribute('aria-label');
      tip.hidden = false;
      const r = button.getBoundingClientRect();
      const s = stage.getBoundingClientRect();
      const x = Math.min(Math.max(r.left + r.width / 2 - s.left, 80), s.width - 80);
      const y = r.top < s.top + 40 ? r.bottom - s.top + 8 : Math.max(8, Math.min(r.top - s.top - 44, s.height - 44));
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    }, LONG_PRESS_MS);
  });
  for (const type of ['pointerup', 'pointercancel', 'pointerleave']) holder.addEventListener(type, hide);
  holder.addEventListener('contextmenu', (event) => {
    if (shown || event.target instanceof Element && event.target.closest('button')) event.preventDefault();
  });
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
  setWidth(state.widths[tool] * factor);
  scheduleHide();
}

/** The width of the tool in hand (or the pen's), shown on the canvas as it changes. */
export function setWidth(width) {
  const tool = widthTool();
  state.widths[tool] = clampWidth(width);
  remember();
  renderTools();
  showBrushPreview();
}

// ---- the brush preview: the tool's mark at its real size on the canvas, in its colour and opacity ----

let hideTimer = 0;

function scheduleHide() {
  clearTimeout(hideTimer);
  hideTimer = setTimeout(hideBrushPreview, 1200);
}

export function hideBrushPreview() {
  clearTimeout(hideTimer);
  $('brush-preview').hidden = true;
}

export function showBrushPreview() {
  const tool = widthTool();
  const w = state.widths[tool];
  const node = $('brush-preview');
  // A stroke's width is a fraction of the shot's width: on screen, times the shot's width and zoom.
  const px = Math.max(1, w * renderer.fitW * renderer.view.zoom);
  const eraser = tool === 'eraser' || tool === 'split';
  const opacity = eraser ? 1 : TOOL_ALPHA[tool] ?? 1;
  const dot = node.querySelector('.sk-brush-dot');
  dot.style.width = px + 'px';
  dot.style.height = px + 'px';
  dot.style.background = eraser ? 'transparent' : state.color;
  dot.style.opacity = String(opacity);
  dot.classList.toggle('is-eraser', eraser);
  const text = t('storyboard.brush-preview', {
    tool: t('storyboard.tool-short.' + tool),
    width: formatNumber(w, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    opacity: formatNumber(opacity, { style: 'percent' }),
  });
  node.querySelector('.sk-brush-text').textContent = text;
  node.dataset.size = px.toFixed(1);
  node.dataset.opacity = String(opacity);
  node.hidden = false;
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
  const slider = $('width-slider');
  if (slider && document.activeElement !== slider) slider.value = sliderOf(w);
}
