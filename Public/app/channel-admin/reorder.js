// Reordering rows of a list by dragging their handle or, with the handle focused, by the arrow
// keys (Up/Down moves one place, Home/End to the ends). The new order of ids is handed to
// `onReorder` after each move; the list is reordered in place first.
import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';

/** A drag handle for a row with `data-id`; put it in the row. */
export function handle(label) {
  return el('button', { class: 'reorder-handle', text: '⠿', attrs: { type: 'button', 'aria-label': t('channeladmin.move-arrows', { name: label }), draggable: 'true' } });
}

/** Makes the rows (children with `data-id`) of `list` reorderable. */
export function makeReorderable(list, onReorder) {
  let dragged = null;
  const rows = () => [...list.children].filter((row) => row.dataset.id);
  const done = () => onReorder(rows().map((row) => row.dataset.id));

  list.addEventListener('dragstart', (event) => {
    const row = event.target.closest('[data-id]');
    if (!row || !event.target.classList.contains('reorder-handle')) return;
    dragged = row;
    row.classList.add('dragging');
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', row.dataset.id);
    event.dataTransfer.setDragImage(row, 16, 16);
  });
  list.addEventListener('dragover', (event) => {
    if (!dragged) return;
    event.preventDefault();
    const over = event.target.closest('[data-id]');
    if (!over || over === dragged || over.parentElement !== list) return;
    const box = over.getBoundingClientRect();
    const after = event.clientY > box.top + box.height / 2;
    over.parentElement.insertBefore(dragged, after ? over.nextSibling : over);
  });
  list.addEventListener('drop', (event) => {
    if (!dragged) return;
    event.preventDefault();
  });
  list.addEventListener('dragend', () => {
    if (!dragged) return;
    dragged.classList.remove('dragging');
    dragged = null;
    done();
  });
  list.addEventListener('keydown', (event) => {
    if (!event.target.classList || !event.target.classList.contains('reorder-handle')) return;
    const row = event.target.closest('[data-id]');
    const all = rows();
    const index = all.indexOf(row);
    let target = null;
    if (event.key === 'ArrowUp' && index > 0) target = index - 1;
    else if (event.key === 'ArrowDown' && index < all.length - 1) target = index + 1;
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = all.length - 1;
    if (target === null || target === index) return;
    event.preventDefault();
    const reference = target < index ? all[target] : all[target].nextSibling;
    list.insertBefore(row, reference);
    event.target.focus();
    done();
  });
}
