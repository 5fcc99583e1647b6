// Small DOM helpers shared by every page: element builder, icons, toasts, dialogs.
// User text only ever goes in through textContent.

import { t } from './i18n.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Line icons, 24×24, drawn with the current text colour. */
const ICONS = {
  'chevron-left': ['M15 18l-6-6 6-6'],
  'chevron-right': ['M9 18l6-6-6-6'],
  'arrow-left': ['M19 12H5', 'M12 19l-7-7 7-7'],
  plus: ['M12 5v14', 'M5 12h14'],
  minus: ['M5 12h14'],
  'zoom-reset': ['M4 9V4h5', 'M20 9V4h-5', 'M4 15v5h5', 'M20 15v5h-5'],
  laser: ['M12 12m-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0', 'M12 2v3', 'M12 19v3', 'M2 12h3', 'M19 12h3'],
  square: ['M4 4h16v16H4z'],
  sun: ['M12 12m-4 0a4 4 0 1 0 8 0a4 4 0 1 0 -8 0', 'M12 2v2', 'M12 20v2', 'M4.9 4.9l1.4 1.4', 'M17.7 17.7l1.4 1.4',
    'M2 12h2', 'M20 12h2', 'M4.9 19.1l1.4-1.4', 'M17.7 6.3l1.4-1.4'],
  eye: ['M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z', 'M12 12m-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0'],
  eyeOff: ['M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z', 'M12 12m-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0', 'M3 3l18 18'],
  phone: ['M7 2h10a1 1 0 0 1 1 1v18a1 1 0 0 1-1 1H7a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1z', 'M11 18h2'],
  fullscreen: ['M8 3H5a2 2 0 0 0-2 2v3', 'M21 8V5a2 2 0 0 0-2-2h-3', 'M3 16v3a2 2 0 0 0 2 2h3', 'M16 21h3a2 2 0 0 0 2-2v-3'],
  users: ['M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2', 'M9 7m-4 0a4 4 0 1 0 8 0a4 4 0 1 0 -8 0',
    'M23 21v-2a4 4 0 0 0-3-3.9', 'M16 3.1a4 4 0 0 1 0 7.8'],
  lock: ['M5 11h14v10H5z', 'M8 11V7a4 4 0 0 1 8 0v4'],
  copy: ['M9 9h11v11H9z', 'M5 15H4V4h11v1'],
  qr: ['M3 3h7v7H3z', 'M14 3h7v7h-7z', 'M3 14h7v7H3z', 'M14 14h3v3h-3z', 'M20 14v.01', 'M14 20h.01', 'M17 17h4v4h-4'],
  upload: ['M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4', 'M17 8l-5-5-5 5', 'M12 3v12'],
  folder: ['M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z'],
  'folder-plus': ['M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z', 'M12 10v6', 'M9 13h6'],
  grid: ['M3 3h7v7H3z', 'M14 3h7v7h-7z', 'M3 14h7v7H3z', 'M14 14h7v7h-7z'],
  more: ['M12 12h.01', 'M5 12h.01', 'M19 12h.01'],
  trash: ['M3 6h18', 'M8 6V4h8v2', 'M19 6l-1 14H6L5 6', 'M10 11v6', 'M14 11v6'],
  edit: ['M12 20h9', 'M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z'],
  broadcast: ['M12 12m-2 0a2 2 0 1 0 4 0a2 2 0 1 0 -4 0', 'M16.2 7.8a6 6 0 0 1 0 8.4', 'M7.8 16.2a6 6 0 0 1 0-8.4',
    'M19.1 4.9a10 10 0 0 1 0 14.2', 'M4.9 19.1a10 10 0 0 1 0-14.2'],
  play: ['M6 4l14 8-14 8z'],
  download: ['M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4', 'M7 10l5 5 5-5', 'M12 15V3'],
  logout: ['M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4', 'M16 17l5-5-5-5', 'M21 12H9'],
  x: ['M18 6L6 18', 'M6 6l12 12'],
  check: ['M20 6L9 17l-5-5'],
  alert: ['M12 9v4', 'M12 17h.01', 'M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z'],
  move: ['M5 9l-3 3 3 3', 'M9 5l3-3 3 3', 'M15 19l-3 3-3-3', 'M19 9l3 3-3 3', 'M2 12h20', 'M12 2v20'],
  stop: ['M6 6h12v12H6z'],
  mic: ['M12 1a3 3 0 0 0-3 3v8a3 3 0 0 0 6 0V4a3 3 0 0 0-3-3z', 'M19 10v2a7 7 0 0 1-14 0v-2', 'M12 19v4', 'M8 23h8'],
  link: ['M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7', 'M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7'],
  film: ['M3 4h18v16H3z', 'M7 4v16', 'M17 4v16', 'M3 9h4', 'M17 9h4', 'M3 15h4', 'M17 15h4'],
  chart: ['M4 20V10', 'M10 20V4', 'M16 20v-7', 'M22 20H2'],
  message: ['M21 12a8 8 0 0 1-11.6 7.1L3 21l1.9-6.4A8 8 0 1 1 21 12z'],
  send: ['M22 2L11 13', 'M22 2l-7 20-4-9-9-4z'],
  chevronDown: ['M6 9l6 6 6-6'],
  chevronUp: ['M18 15l-6-6-6 6'],
  quote: ['M7 7h4v4c0 3-2 5-4 6', 'M15 7h4v4c0 3-2 5-4 6'],
  unlock: ['M5 11h14v10H5z', 'M8 11V7a4 4 0 0 1 7.5-2'],
  share: ['M4 12v8h16v-8', 'M16 6l-4-4-4 4', 'M12 2v13'],
  trophy: ['M8 21h8', 'M12 17v4', 'M7 4h10v5a5 5 0 0 1-10 0z', 'M17 5h3v2a3 3 0 0 1-3 3', 'M7 5H4v2a3 3 0 0 0 3 3'],
  thumbUp: ['M7 10v11H3V10z', 'M7 10l4-8a3 3 0 0 1 3 3v4h6a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 18.6 21H7'],
  arrowUp: ['M12 19V5', 'M5 12l7-7 7 7'],
  list: ['M8 6h13', 'M8 12h13', 'M8 18h13', 'M3 6h.01', 'M3 12h.01', 'M3 18h.01'],
  note: ['M14 3H6a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V9z', 'M14 3v6h6', 'M8 13h8', 'M8 17h5'],
  report: ['M3 3v18h18', 'M7 15l4-4 3 3 5-6'],
  hand: ['M18 11V6a2 2 0 0 0-4 0v5', 'M14 10V4a2 2 0 0 0-4 0v6', 'M10 10.5V6a2 2 0 0 0-4 0v8',
    'M18 8a2 2 0 1 1 4 0v6a8 8 0 0 1-8 8h-2c-2.8 0-4.5-.9-5.9-2.4L2.7 16a2 2 0 0 1 2.9-2.8L7 15'],
  clock: ['M12 12m-9 0a9 9 0 1 0 18 0a9 9 0 1 0 -18 0', 'M12 7v5l3 2'],
  moon: ['M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z'],
  projector: ['M2 7h20v10H2z', 'M16 12m-2.5 0a2.5 2.5 0 1 0 5 0a2.5 2.5 0 1 0 -5 0', 'M5 10h6', 'M5 14h4', 'M6 17v3', 'M18 17v3'],
  pass: ['M5 12h14', 'M13 6l6 6-6 6'],
  undo: ['M9 14L4 9l5-5', 'M4 9h11a5 5 0 0 1 0 10h-4'],
  crown: ['M3 8l4 4 5-7 5 7 4-4-2 11H5z'],
  library: ['M4 4h4v16H4z', 'M10 4h4v16h-4z', 'M16.5 4.5l3.8 1-3.9 15-3.8-1z'],
  pen: ['M12 20h9', 'M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z'],
  highlighter: ['M9 11l-6 6v3h9l3-3', 'M22 12l-4.6 4.6a2 2 0 0 1-2.8 0l-5.2-5.2a2 2 0 0 1 0-2.8L14 4'],
  eraser: ['M20 20H7L3 16a2 2 0 0 1 0-2.8L13.2 3a2 2 0 0 1 2.8 0l5 5a2 2 0 0 1 0 2.8L12 20', 'M6 11l7 7'],
  clear: ['M3 6h18', 'M8 6V4h8v2', 'M19 6l-1 14H6L5 6'],
  screen: ['M3 4h18v12H3z', 'M8 20h8', 'M12 16v4'],
  pause: ['M7 4h3v16H7z', 'M14 4h3v16h-3z'],
  back10: ['M3 12a9 9 0 1 0 3-6.7', 'M3 4v5h5', 'M10 10v5', 'M13 10h2v5h-2z'],
  forward10: ['M21 12a9 9 0 1 1-3-6.7', 'M21 4v5h-5', 'M9 10v5', 'M12 10h2v5h-2z'],
  volume: ['M4 9h4l5-4v14l-5-4H4z', 'M16.5 8.5a5 5 0 0 1 0 7', 'M19 6a8.5 8.5 0 0 1 0 12'],
  mute: ['M4 9h4l5-4v14l-5-4H4z', 'M17 9l5 6', 'M22 9l-5 6'],
  radio: ['M4 9h16v11H4z', 'M8 9l9-5', 'M8 13.5a1.5 1.5 0 1 0 0 .01', 'M13 13h4', 'M13 16h4'],
  'map-pin': ['M12 21s-7-6.2-7-11.5a7 7 0 0 1 14 0C19 14.8 12 21 12 21z', 'M12 11.5a2 2 0 1 0 0-4 2 2 0 0 0 0 4z'],
  star: ['M12 3l2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3 6.4 20.2l1.1-6.2L3 9.6l6.2-.9z'],
  bell: ['M6 16V11a6 6 0 0 1 12 0v5l2 2H4z', 'M10 21h4'],
  search: ['M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14z', 'M21 21l-5-5'],
  quiz: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18z', 'M9.5 9a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .9-1 1.6V14', 'M12 17.5v.01'],
  user: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M4 21a8 8 0 0 1 16 0'],
  archive: ['M3 4h18v4H3z', 'M5 8v12h14V8', 'M10 12h4'],
  globe: ['M12 12m-9 0a9 9 0 1 0 18 0a9 9 0 1 0 -18 0', 'M3 12h18', 'M12 3a14 14 0 0 1 0 18', 'M12 3a14 14 0 0 0 0 18'],
};

const POINTING = new Set(['chevron-left', 'chevron-right', 'arrow-left', 'pass', 'send', 'undo']);

/** An inline SVG icon, hidden from screen readers (the button carries the label). */
export function icon(name, size = 20) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '2');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.classList.add('icon');
  // Icons that point (back, previous, next) turn round in a right-to-left page (styles.css).
  if (POINTING.has(name)) svg.classList.add('icon-pointing');
  for (const d of ICONS[name] || []) {
    const path = document.createElementNS(SVG_NS, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

/** Replaces every <span data-icon="name"> in the page with its SVG. */
export function hydrateIcons(root = document) {
  for (const holder of root.querySelectorAll('[data-icon]')) {
    if (holder.firstChild && holder.firstChild.nodeName === 'svg') continue;
    holder.replaceChildren(icon(holder.dataset.icon, Number(holder.dataset.iconSize) || 20));
  }
}

/**
 * Builds an element: el('button', {class: 'btn', text: 'Go', attrs: {type: 'button'}, on: {click}}, children).
 */
export function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.class) node.className = options.class;
  if (options.text !== undefined && options.text !== null) node.textContent = String(options.text);
  for (const [name, value] of Object.entries(options.attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(options.data || {})) node.dataset[name] = String(value);
  for (const [type, handler] of Object.entries(options.on || {})) node.addEventListener(type, handler);
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** A button with an icon and a text label (the label may be visually hidden on small screens). */
export function iconButton(iconName, label, { cls = 'btn', showLabel = true, on = {}, attrs = {} } = {}) {
  const button = el('button', { class: cls, attrs: { type: 'button', 'aria-label': label, title: label, ...attrs }, on });
  button.append(icon(iconName));
  if (showLabel) button.append(el('span', { class: 'btn-label', text: label }));
  return button;
}

let toastRegion = null;

/** Shows a short message at the bottom of the screen. kind: info | success | error. */
export function toast(message, { kind = 'info', timeout = 5000 } = {}) {
  if (!toastRegion) {
    toastRegion = document.getElementById('toasts');
    if (!toastRegion) {
      toastRegion = el('div', { class: 'toasts', attrs: { id: 'toasts', role: 'status', 'aria-live': 'polite' } });
      document.body.append(toastRegion);
    }
  }
  const iconName = kind === 'error' ? 'alert' : kind === 'success' ? 'check' : 'eye';
  const close = el('button', { class: 'toast-close', attrs: { type: 'button', 'aria-label': t('common.dismiss') } }, [icon('x', 16)]);
  const node = el('div', { class: 'toast toast-' + kind, attrs: { role: kind === 'error' ? 'alert' : 'status' } }, [
    icon(iconName, 18), el('span', { class: 'toast-text', text: message }), close,
  ]);
  const remove = () => node.remove();
  close.addEventListener('click', remove);
  toastRegion.append(node);
  if (timeout > 0) setTimeout(remove, kind === 'error' ? timeout * 2 : timeout);
  return node;
}

let dialogCount = 0;

/**
 * The one modal dialog of every page: a titled <dialog> with a body and a row of actions, added to
 * the page, shown modally and removed once closed. `form: true` makes the content a form (submit
 * buttons close it with their value); `contentCls` adds classes to it. `head` puts nodes beside
 * the title (a close button), in a row of class `headCls`. `keep: true` keeps the dialog on the
 * page once closed, to be shown again; `bare: true` puts the title, body and actions straight in
 * the dialog (it lays them out itself). Returns { dialog, content }.
 */
export function modalDialog({
  title, body = [], actions = [], id = null, cls = '', form = false, open = true,
  contentCls = '', head = null, headCls = '', keep = false, bare = false,
}) {
  const titleId = (id || 'dialog-' + ++dialogCount) + '-title';
  const dialog = el('dialog', { class: ('dialog ' + cls).trim(), attrs: { 'aria-labelledby': titleId } });
  if (id) dialog.id = id;
  const heading = el('h2', { class: 'dialog-title', text: title, attrs: { id: titleId } });
  const top = head ? el('div', { class: headCls }, [heading, ...head]) : heading;
  const parts = [top, ...body, el('div', { class: 'dialog-actions' }, actions)].filter(Boolean);
  const content = bare ? dialog : el(form ? 'form' : 'div', {
    class: ('dialog-form ' + contentCls).trim(), attrs: form ? { method: 'dialog', novalidate: true } : {},
  });
  content.append(...parts);
  if (!bare) dialog.append(content);
  document.body.append(dialog);
  if (!keep) dialog.addEventListener('close', () => setTimeout(() => dialog.remove(), 0));
  if (open) dialog.showModal();
  return { dialog, content };
}

function dialogShell(title, bodyNodes, actions) {
  const { dialog, content } = modalDialog({ title, body: bodyNodes, actions, form: true, open: false });
  return { dialog, form: content };
}

/** A yes/no question in a modal dialog. Resolves true when confirmed. */
export function confirmDialog({ title, message, confirmLabel = t('common.ok'), danger = false }) {
  return new Promise((resolve) => {
    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { value: 'cancel', type: 'submit' } });
    const ok = el('button', {
      class: danger ? 'btn btn-danger' : 'btn btn-primary', text: confirmLabel,
      attrs: { value: 'ok', type: 'submit', 'data-role': 'confirm' },
    });
    const { dialog } = dialogShell(title, [el('p', { class: 'dialog-text', text: message })], [cancel, ok]);
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'));
    dialog.showModal();
    ok.focus();
  });
}

/** Asks for one line of text. Resolves with the text, or null when cancelled. */
export function promptDialog({ title, label, value = '', confirmLabel = t('common.save'), maxLength = 200 }) {
  return new Promise((resolve) => {
    const input = el('input', {
      class: 'input', attrs: { type: 'text', value, maxlength: maxLength, required: true, 'aria-label': label, autocomplete: 'off' },
    });
    const field = el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), input]);
    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { value: 'cancel', type: 'button' } });
    const ok = el('button', { class: 'btn btn-primary', text: confirmLabel, attrs: { value: 'ok', type: 'submit' } });
    const { dialog, form } = dialogShell(title, [field], [cancel, ok]);
    let result = null;
    cancel.addEventListener('click', () => dialog.close('cancel'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) {
        input.focus();
        return;
      }
      result = text;
      dialog.close('ok');
    });
    dialog.addEventListener('close', () => resolve(result));
    dialog.showModal();
    input.select();
  });
}

/** Asks to pick one of a list of options. Resolves with the chosen value, or undefined when cancelled. */
export function chooseDialog({ title, label, options, value, confirmLabel = t('common.move') }) {
  return new Promise((resolve) => {
    const select = el('select', { class: 'input', attrs: { 'aria-label': label } });
    for (const option of options) {
      const node = el('option', { text: option.label, attrs: { value: option.value } });
      if (option.value === value) node.selected = true;
      select.append(node);
    }
    const field = el('label', { class: 'field' }, [el('span', { class: 'field-label', text: label }), select]);
    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { value: 'cancel', type: 'button' } });
    const ok = el('button', { class: 'btn btn-primary', text: confirmLabel, attrs: { value: 'ok', type: 'submit' } });
    const { dialog, form } = dialogShell(title, [field], [cancel, ok]);
    let result;
    cancel.addEventListener('click', () => dialog.close('cancel'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      result = select.value;
      dialog.close('ok');
    });
    dialog.addEventListener('close', () => resolve(result));
    dialog.showModal();
    select.focus();
  });
}

/** Shows information in a modal dialog with one Close button. Resolves when it closes. */
export function infoDialog({ title, body, closeLabel = t('common.close'), cls = '' }) {
  return new Promise((resolve) => {
    const close = el('button', { class: 'btn btn-primary', text: closeLabel, attrs: { value: 'close', type: 'submit' } });
    const { dialog } = dialogShell(title, body, [close]);
    if (cls) dialog.classList.add(cls);
    dialog.addEventListener('close', () => resolve());
    dialog.showModal();
    close.focus();
  });
}

/** True when a key press belongs to a text field (shortcuts must not fire). */
export function isTyping(event) {
  const target = event.target;
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (target.getAttribute('type') || 'text').toLowerCase();
    return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset'].includes(type);
  }
  return false;
}

/** A modal dialog is open: page shortcuts pause. */
export function dialogOpen() {
  return Boolean(document.querySelector('dialog[open]'));
}

/** Toggles fullscreen on an element (or the whole page). */
export function toggleFullscreen(element = document.documentElement) {
  if (document.fullscreenElement) {
    document.exitFullscreen().catch(() => {});
  } else if (element.requestFullscreen) {
    element.requestFullscreen().catch(() => {});
  }
}

/**
 * A count in words: `plural('library.pages', 3)` is the catalogue's plural message `library.pages`
 * for 3, in the page's language (with more `params` if the message has other placeholders).
 */
export function plural(key, count, params = {}) {
  return t(key, { ...params, count });
}

/** Join codes: 6 characters from an alphabet without look-alikes. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 6;

/** Upper-cases and keeps only join-code characters. Returns {code, dropped}. */
export function cleanCode(text) {
  let code = '';
  let dropped = false;
  for (const ch of String(text).toUpperCase()) {
    if (CODE_ALPHABET.includes(ch)) code += ch;
    else if (ch.trim() !== '' && ch !== '-') dropped = true;
  }
  return { code: code.slice(0, CODE_LENGTH), dropped };
}

export function prefersReducedMotion() {
  return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
