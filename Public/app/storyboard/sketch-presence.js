// Who else is editing: their cursors with their names and colours, and their strokes while they
// draw them (`drawing` frames, until the stroke ends), on the shot in view.

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { $, state, renderer, hooks, LIVE_STALE_MS, CURSOR_STALE_MS } from './sketch-context.js';

// ---- others: cursors and strokes being drawn ----

function editorInfo(editor) {
  const list = state.doc ? state.doc.editors : [];
  return list.find((e) => String(e.editor) === String(editor)) || { name: t('storyboard.someone'), color: '#f59e0b' };
}

function isMe(editor) {
  return Boolean(state.doc && state.doc.you) && String(state.doc.you.editor) === String(editor);
}

export function onDrawing(frame) {
  if (!frame || isMe(frame.editor)) return;
  const editor = String(frame.editor);
  if (!frame.stroke) {
    // Their stroke ended (committed just before, or cancelled).
    if (state.live.delete(editor)) hooks.composeFrame();
    return;
  }
  state.live.set(editor, { layer: frame.layer, stroke: frame.stroke, shot: frame.shot, at: performance.now() });
  if (frame.shot === state.shotId) hooks.composeFrame();
  scheduleSweep();
}

export function onCursor(frame) {
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
    hooks.composeFrame();
    placeCursors();
    if (again) scheduleSweep();
  }, 1000);
}

export function placeCursors() {
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
    node.querySelector('span').textContent = info.name || t('storyboard.someone');
    node.style.setProperty('--who', info.color || '#f59e0b');
    const [x, y] = renderer.toStage(c.x, c.y);
    node.style.transform = 'translate(' + Math.round(x) + 'px,' + Math.round(y) + 'px)';
  }
  for (const node of [...box.children]) if (!seen.has(node.dataset.editor)) node.remove();
}

export function renderEditors(editors) {
  const you = state.doc && state.doc.you ? state.doc.you.editor : null;
  $('editors').replaceChildren(...(editors || []).map((e) => {
    const dot = el('span', {
      class: 'sb-editor-dot' + (e.editor === you ? ' is-you' : ''), text: (e.name || '?').trim().charAt(0).toUpperCase(),
      attrs: { title: e.editor === you ? t('storyboard.you-name', { name: e.name || t('storyboard.someone') }) : e.name || t('storyboard.someone') },
    });
    if (e.color) dot.style.setProperty('--who', e.color);
    return dot;
  }));
  const here = new Set((editors || []).map((e) => String(e.editor)));
  for (const id of [...state.cursors.keys()]) if (!here.has(id)) state.cursors.delete(id);
  for (const id of [...state.live.keys()]) if (!here.has(id)) state.live.delete(id);
  placeCursors();
  hooks.composeFrame();
}
