// The admin's table of video categories (one level of sub-categories): add, rename, move under
// another, reorder, delete (= archive); in the archive restore or delete for ever (refused while
// a video or sub-category uses it).
//
// Hooks for tests: [data-role=add-category], rows tr[data-id] with [data-role=edit|archive|
// restore|delete-forever].

import { errorText, t } from '../core/i18n.js';
import { el, modalDialog } from '../core/ui.js';
import { BASE, call, reorderHandle, rowButton, tablePart, archivedButtons, messageRow, emptyRow } from './video-admin-common.js';
import { archiveActions } from './archive.js';

let categories = [];

// The page: its section's context (`table.ctx`), the Current/Archived choice (`table.view`), the rows (`table.tbody`).
const table = tablePart({
  title: t('channeladmin.categories.title'),
  add: { label: t('channeladmin.categories.add'), role: 'add-category', onClick: () => editDialog(null) },
  columns: [t('channeladmin.name'), t('channeladmin.actions')],
  orderPath: '/videos/categories/order', reloadAfterOrder: true, load: () => load(),
});
export const { mount, show } = table;

/** Top-level categories, each followed by its sub-categories (the order the table and the API keep). */
function ordered(list) {
  const top = list.filter((c) => !c.parentId || !list.some((p) => p.id === c.parentId));
  return top.flatMap((c) => [c, ...list.filter((s) => s.parentId === c.id)]);
}

async function load() {
  try {
    categories = await call('/videos/categories?status=all');
    const shown = table.view.status === 'archived' ? await call('/videos/categories?status=archived') : ordered(categories);
    render(shown);
  } catch (error) {
    table.tbody.replaceChildren(messageRow(errorText(error), 3));
  }
}

function render(list) {
  table.tbody.replaceChildren(...list.map((category) => {
    const archive = archiveActions(BASE + '/videos/categories/' + encodeURIComponent(category.id), {
      ctx: table.ctx, done: load, archived: t('channeladmin.categories.archived'), confirm: t('channeladmin.delete-forever-message', { name: category.name }),
    });
    const actions = table.view.status === 'archived'
      ? archivedButtons(archive)
      : [
        rowButton(t('channeladmin.edit'), 'edit', () => editDialog(category)),
        rowButton(t('channeladmin.delete'), 'archive', archive.archive, { danger: true }),
      ];
    return el('tr', { attrs: { 'data-id': category.id }, class: category.parentId ? 'cva-sub' : '' }, [
      el('td', {}, [table.view.status === 'archived' ? null : reorderHandle(category.name)]),
      el('td', {}, [el('span', { text: (category.parentId ? '↳ ' : '') + category.name })]),
      el('td', {}, [el('div', { class: 'cva-actions' }, actions)]),
    ]);
  }));
  if (!list.length) {
    table.tbody.replaceChildren(emptyRow(table.view, t('channeladmin.categories.none'), 3));
  }
}

function editDialog(category) {
  const name = el('input', { class: 'input', attrs: { name: 'name', maxlength: 100, required: true, value: category ? category.name : '' } });
  const parents = categories.filter((c) => !c.parentId && (!category || c.id !== category.id));
  const parent = el('select', { class: 'input', attrs: { name: 'parentId' } }, [
    el('option', { text: t('channeladmin.categories.no-parent'), attrs: { value: '' } }),
    ...parents.map((c) => el('option', { text: c.name, attrs: { value: c.id } })),
  ]);
  parent.value = category && category.parentId ? category.parentId : '';
  const error = el('p', { class: 'cva-error', attrs: { role: 'alert', hidden: true } });
  const cancel = el('button', { class: 'btn', text: t('channeladmin.cancel'), attrs: { type: 'button' } });
  const save = el('button', { class: 'btn btn-primary', text: category ? t('channeladmin.save') : t('channeladmin.add'), attrs: { type: 'submit', 'data-role': 'save' } });
  const { dialog, content } = modalDialog({
    title: category ? t('channeladmin.categories.edit-title') : t('channeladmin.categories.add-title'),
    body: [
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('channeladmin.name') }), name]),
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('channeladmin.categories.parent') }), parent]),
      error,
    ],
    actions: [cancel, save], form: true,
  });
  cancel.addEventListener('click', () => dialog.close());
  content.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { name: name.value.trim(), parentId: parent.value || null };
    try {
      if (category) await call('/videos/categories/' + encodeURIComponent(category.id), { method: 'PATCH', body });
      else await call('/videos/categories', { method: 'POST', body });
    } catch (problem) {
      error.textContent = errorText(problem);
      error.hidden = false;
      return;
    }
    dialog.close();
    table.ctx.toast(category ? t('channeladmin.saved') : t('channeladmin.added'));
    load();
  });
}
