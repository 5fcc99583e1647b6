// What the admin's Videos and Categories tables share: JSON calls that keep the server's message,
// the page (head and table), the archived rows' actions, and a table whose rows reorder by drag or
// by keyboard (Alt+Arrow on a row's handle; the radio's tables too). Their archive (actions and
// the "Current / Archived" switch) is archive.js, as every part's.

import { api } from '../core/api.js';
import { errorText, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { archiveSwitch } from './archive.js';

export const BASE = '/api/v1/channel';

/** Calls the channel API (api.js); rejects with ApiError, whose message is the server's. */
export function call(path, options) {
  return api(BASE + path, options);
}

/**
 * A table page in `section`: its head (the `title`, the Current/Archived switch, which sets
 * `view.status` and calls `load()`, the Add button `add` = {label, role, onClick}), then the table in its scroll box,
 * with a header cell for the rows' order handle and one for each of `columns`. Its rows reorder
 * (`onOrder(ids)` saves). Returns the table's body.
 */
export function tablePage(section, { title, add, view, load, columns, onOrder }) {
  ensureStyles();
  const addButton = el('button', { class: 'btn btn-primary', text: add.label, attrs: { type: 'button', 'data-role': add.role } });
  addButton.addEventListener('click', add.onClick);
  const tbody = el('tbody');
  sortableRows(tbody, onOrder);
  section.classList.add('cva');
  section.replaceChildren(
    el('div', { class: 'cva-head' }, [el('h1', { text: title }), archiveSwitch({ onChange: (status) => { view.status = status; load(); } }), addButton]),
    el('div', { class: 'cva-scroll' }, [el('table', { class: 'cva-table' }, [
      el('thead', {}, [el('tr', {}, [
        el('th', { attrs: { scope: 'col' } }, [el('span', { class: 'visually-hidden', text: t('channeladmin.order') })]),
        ...columns.map((text) => el('th', { text, attrs: { scope: 'col' } })),
      ])]),
      tbody,
    ])]),
  );
  return tbody;
}

/**
 * A table part of the admin (Videos, Categories): `mount(section, context)` makes its page
 * (tablePage) and `show()` calls `load()`; it keeps the section's context (`ctx`), the
 * Current/Archived choice (`view`) and the table's body (`tbody`). Its rows' order is saved at
 * `orderPath` (orderSaver, reading the table again after saving with `reloadAfterOrder`).
 */
export function tablePart({ title, add, columns, orderPath, reloadAfterOrder = false, load }) {
  const part = {
    ctx: null,
    view: { status: 'all' },
    tbody: null,
    mount(section, context) {
      part.ctx = context;
      part.tbody = tablePage(section, {
        title, add, view: part.view, load, columns, onOrder: orderSaver(orderPath, { ctx: context, load, always: reloadAfterOrder }),
      });
    },
    show() {
      load();
    },
  };
  return part;
}

/**
 * Saves a table's new order (PUT `path`, under BASE) and says so in a toast of the section's
 * `ctx`; then reads the table again with `load()`: after a failure, and with `always` after
 * success too.
 */
export function orderSaver(path, { ctx, load, always = false }) {
  return async (ids) => {
    try {
      await call(path, { method: 'PUT', body: { ids } });
      ctx.toast(t('channeladmin.order-saved'));
      if (always) load();
    } catch (error) {
      ctx.toast(errorText(error));
      load();
    }
  };
}

/** An archived row's actions: Restore and Delete for ever (archive.js's actions). */
export function archivedButtons(archive) {
  return [
    rowButton(t('channeladmin.restore'), 'restore', archive.restore),
    rowButton(t('channeladmin.delete-forever'), 'delete-forever', archive.forever, { danger: true }),
  ];
}

/** The row of an empty table: the archive's words, or `none` for the current items. */
export function emptyRow(view, none, colspan) {
  return messageRow(view.status === 'archived' ? t('channeladmin.archive-empty') : none, colspan, 'cva-muted');
}

/** The one row of a table that shows `text` across its `colspan` columns. */
export function messageRow(text, colspan, cls = null) {
  return el('tr', {}, [el('td', { attrs: { colspan }, class: cls, text })]);
}

/**
 * A table body whose rows (each with data-id) can be reordered: dragged by their handle, or moved
 * with Alt+ArrowUp/ArrowDown while the handle (`handle`, a selector) has focus. `onOrder(ids)`
 * saves the new order.
 */
export function sortableRows(tbody, onOrder, { handle: handleSelector = '[data-role=reorder]' } = {}) {
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
    const handle = event.target.closest(handleSelector);
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
