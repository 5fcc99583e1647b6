// What the admin's Videos and Categories tables share: JSON calls that keep the server's message,
// and a table whose rows reorder by drag or by keyboard (Alt+Arrow on a row's handle). Their
// archive (actions and the "Current / Archived" switch) is archive.js, as every part's.

import { api } from '../core/api.js';
import { t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';

export const BASE = '/api/v1/channel';

/** Calls the channel API (api.js); rejects with ApiError, whose message is the server's. */
export function call(path, options) {
  return api(BASE + path, options);
}

/**
 * A table body whose rows (each with data-id) can be reordered: dragged by their handle, or moved
 * with Alt+ArrowUp/ArrowDown while the handle has focus. `onOrder(ids)` saves the new order.
 */
export function sortableRows(tbody, onOrder) {
  let dragged = null;
  tbody.addEventListener('dragstart', (event) => {
    dragged = event.target.closest('tr');
    if (!dragged) return;
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', dragged.dataset.id);
    dragged.classList.add('is-dragging');
  });
  tbody.addEventListener('dragover', (event) => {
    if (!dragged) return;
    event.preventDefault();
    const over = event.target.closest('tr');
    if (!over || over === dragged) return;
    const box = over.getBoundingClientRect();
    over[event.clientY < box.top + box.height / 2 ? 'before' : 'after'](dragged);
  });
  tbody.addEventListener('dragend', () => {
    if (!dragged) return;
    dragged.classList.remove('is-dragging');
    dragged = null;
    onOrder([...tbody.rows].map((row) => row.dataset.id));
  });
  tbody.addEventListener('keydown', (event) => {
    const handle = event.target.closest('[data-role=reorder]');
    if (!handle || !event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    event.preventDefault();
    const row = handle.closest('tr');
    const sibling = event.key === 'ArrowUp' ? row.previousElementSibling : row.nextElementSibling;
    if (!sibling) return;
    if (event.key === 'ArrowUp') sibling.before(row);
    else sibling.after(row);
    handle.focus();
    onOrder([...tbody.rows].map((r) => r.dataset.id));
  });
}

/** The drag handle of a row (focusable; Alt+Arrow moves the row). */
export function reorderHandle(label) {
  return el('button', {
    class: 'cva-handle', attrs: { type: 'button', draggable: 'true', 'data-role': 'reorder', 'aria-label': t('channeladmin.move-alt-arrows', { name: label }), title: t('channeladmin.drag-title') },
  }, [icon('move', 16)]);
}

/** A small action button of a row. */
export function rowButton(label, role, onClick, { danger = false } = {}) {
  return el('button', {
    class: danger ? 'btn btn-small btn-danger' : 'btn btn-small', text: label, attrs: { type: 'button', 'data-role': role },
    on: { click: onClick },
  });
}

export function ensureStyles() {
  if (document.querySelector('link[href="/app/channel-admin/videos.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/channel-admin/videos.css' } }));
}

/** "1:05" from seconds. */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** Seconds from "1:05", "1:02:05" or "65"; NaN when it is none of these. */
export function seconds(text) {
  const parts = text.trim().split(':');
  if (parts.length > 3 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) return NaN;
  return parts.reduce((total, part) => total * 60 + Number(part), 0);
}
