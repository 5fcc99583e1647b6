// The keyboard shortcuts of the page, listed when `?` is pressed. The list is read from the page
// itself: every control that has a key says so with `aria-keyshortcuts` (which screen readers
// announce too), so the list cannot disagree with what the keys do. Keys that belong to no single
// button (Space for the next slide, holding `.` for the pointer) are declared on <body
// data-extra-shortcuts="keys=message-key;keys=message-key"> (a catalogue key; plain words still work). A control marked `data-shortcut-click` needs no
// handler of its own: its key clicks it (when it is shown and enabled); if it opens a panel
// (`aria-controls`, the side panel's tabs on Alt+1…4), the focus moves into that panel.
//
// State for tests: dialog.shortcuts-dialog with .shortcut-row[data-keys].

import { el, infoDialog, isTyping, dialogOpen } from './ui.js';
import { t, has } from './i18n.js';

const NAMES = {
  ArrowLeft: '←', ArrowRight: '→', ArrowUp: '↑', ArrowDown: '↓', Control: 'Ctrl', Meta: '⌘', Space: t('common.key-space'),
  PageUp: t('common.key-page-up'), PageDown: t('common.key-page-down'), Escape: t('common.key-escape'),
};

/** What a control does, in words: its label, or its title without the "(key)" hint. */
function describe(control) {
  const text = control.getAttribute('aria-label') || control.getAttribute('title') || control.textContent || '';
  return text.replace(/\s*\([^)]*\)\s*$/, '').trim();
}

/** The page's shortcuts: [{ keys: ['ArrowRight'], what: 'Next' }], one row per action. */
export function pageShortcuts(root = document) {
  const rows = new Map();
  for (const control of root.querySelectorAll('[aria-keyshortcuts]')) {
    const what = describe(control);
    const keys = control.getAttribute('aria-keyshortcuts').split(/\s+/).filter(Boolean);
    if (!what || !keys.length) continue;
    const key = keys.join(' ');
    if (!rows.has(key)) rows.set(key, { keys, what });
  }
  for (const pair of (document.body.dataset.extraShortcuts || '').split(';')) {
    const [keys, what] = pair.split('=');
    if (!keys || !what || rows.has(keys.trim())) continue;
    // The page names a catalogue message (`ArrowRight=live.browse-next`), or (older pages) says it in English.
    const words = has(what.trim()) ? t(what.trim()) : what.trim();
    rows.set(keys.trim(), { keys: keys.trim().split(/\s+/), what: words });
  }
  rows.set('?', { keys: ['?'], what: t('common.shortcuts-show') });
  return [...rows.values()];
}

/** A combination's keys: "Alt+1" is Alt and 1, but "+" is the plus key and "Control++" Control and plus. */
export function comboKeys(combo) {
  return combo.split(/\+(?=.)/);
}

function keyNodes(combo) {
  const parts = comboKeys(combo);
  const nodes = [];
  parts.forEach((part, index) => {
    if (index) nodes.push('+');
    nodes.push(el('kbd', { text: NAMES[part] || (part.length === 1 ? part.toUpperCase() : part) }));
  });
  return nodes;
}

export function showShortcuts() {
  const list = el('dl', { class: 'shortcut-list' });
  for (const { keys, what } of pageShortcuts()) {
    const combos = [];
    keys.forEach((combo, index) => {
      if (index) combos.push(el('span', { class: 'shortcut-or', text: t('common.shortcuts-or') }));
      combos.push(...keyNodes(combo));
    });
    list.append(el('div', { class: 'shortcut-row', attrs: { 'data-keys': keys.join(' ') } }, [
      el('dt', {}, combos), el('dd', { text: what }),
    ]));
  }
  return infoDialog({ title: t('common.shortcuts-title'), body: [list], cls: 'shortcuts-dialog' });
}

/** The key press as `aria-keyshortcuts` writes it: "J", "Alt+3", "Control+Z". */
function comboOf(event) {
  const key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
  return (event.ctrlKey ? 'Control+' : '') + (event.metaKey ? 'Meta+' : '') + (event.altKey ? 'Alt+' : '') + key;
}

/** Alt+digit arrives as the digit on most layouts, but as another character on some: use the code. */
function digitCombo(event) {
  const match = /^Digit(\d)$/.exec(event.code || '');
  return event.altKey && match ? 'Alt+' + match[1] : null;
}

const FOCUSABLE = 'button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A shortcut that opens a panel (a tab, with `aria-controls`) takes the focus into the panel: to
 * its first heading (focusable for the purpose), else its first control, so the keys go on there.
 */
export function focusInto(control) {
  const id = control.getAttribute('aria-controls');
  const panel = id ? document.getElementById(id) : null;
  if (!panel || panel.hidden || !panel.getClientRects().length) return;
  const shown = (node) => node.getClientRects().length > 0;
  const heading = [...panel.querySelectorAll('h1, h2, h3, h4')].find(shown);
  const target = heading || [...panel.querySelectorAll(FOCUSABLE)].find(shown);
  if (!target) return;
  if (target === heading && !heading.hasAttribute('tabindex')) heading.tabIndex = -1;
  target.focus();
}

document.addEventListener('keydown', (event) => {
  if (isTyping(event) || dialogOpen()) return;
  if (event.key === '?' && !event.ctrlKey && !event.metaKey && !event.altKey) {
    event.preventDefault();
    showShortcuts();
    return;
  }
  for (const combo of [comboOf(event), digitCombo(event)].filter(Boolean)) {
    for (const control of document.querySelectorAll('[data-shortcut-click][aria-keyshortcuts]')) {
      const keys = control.getAttribute('aria-keyshortcuts').split(/\s+/);
      if (!keys.includes(combo) || control.disabled || !control.getClientRects().length) continue;
      event.preventDefault();
      control.click();
      focusInto(control);
      return;
    }
  }
});
