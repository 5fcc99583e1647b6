// What the admin's places and quizzes share: their page's parts (toolbar, Current/Archived
// switch, Add button, the reorderable list, the form pane), saving a change with a toast (and
// reading the list again when it failed), a row of the list (its handle, title, published badge
// and actions), the actions of a current or an archived row, and the form pane that closes.
import { api } from '../core/api.js';
import { errorText, t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { handle, makeReorderable } from './reorder.js';
import { archiveSwitch } from './archive.js';
import { useStylesheet } from '../channel/stylesheet.js';

/**
 * Sets up a part's page in `section` (its class `cls`, the places' and quizzes' stylesheet) and
 * makes its parts: `add` (the Add button: `addLabel`, `addClass`, `onAdd`), `filter` (the
 * Current/Archived switch, named `title`: it sets `state.status` and calls `load()`), `table` (the list, class
 * `tableClass`, reordered with `onReorder(ids)`), `form` (the hidden form pane, `formClass`,
 * `formLabel`) and `toolbar` (the title, the switch and Add).
 */
export async function listParts(section, { cls, title, addLabel, addClass, onAdd, state, load, tableClass, onReorder, formClass, formLabel }) {
  await useStylesheet('/app/channel-admin/places-quizzes.css');
  section.classList.add(cls);
  const add = el('button', { class: 'btn btn-primary ' + addClass, text: addLabel, attrs: { type: 'button' }, on: { click: onAdd } });
  const filter = archiveSwitch({ current: title, classes: ['admin-filter', 'btn admin-filter-button'], hides: [add],
    onChange: (status) => {
      state.status = status;
      load();
    },
  });
  const table = el('ul', { class: tableClass, attrs: { 'aria-label': title } });
  makeReorderable(table, onReorder);
  const form = el('section', { class: formClass, attrs: { hidden: true, 'aria-label': formLabel } });
  const toolbar = el('div', { class: 'admin-toolbar' }, [el('h1', { text: title }), filter, add]);
  return { add, filter, table, form, toolbar };
}

/**
 * A list part of the admin (Places, Quizzes): `mount(section, context)` makes its page (listParts,
 * into `parts`; then the toolbar, the form pane, the list and what `more(parts)` adds) and
 * `show()` calls `load()`; `ctx` is the section's context once mounted, `save` its saver.
 */
export function listPart({ parts, state, load, more = () => [], ...options }) {
  const part = {
    ctx: null,
    save: (...args) => saver(part.ctx, load)(...args),
    async mount(section, context) {
      part.ctx = context;
      Object.assign(parts, await listParts(section, { ...options, state, load }));
      section.append(parts.toolbar, parts.form, parts.table, ...more(parts));
    },
    show() {
      load();
    },
  };
  return part;
}

/**
 * A part's `save(path, method, body, message)`: calls the API, says `message` (if any) in a toast
 * of the section's `ctx`; on failure says the server's reason and calls `load()`. Resolves with
 * the answer (true when it has none), or null when it failed.
 */
export function saver(ctx, load) {
  return async (path, method, body, message) => {
    try {
      const result = await api(path, { method, body });
      if (message) ctx.toast(message);
      return result ?? true;
    } catch (error) {
      ctx.toast(errorText(error), { kind: 'error' });
      load();
      return null;
    }
  };
}

/**
 * A row's buttons: archived, Restore and Delete for ever (`archive`, archive.js's actions);
 * current, Edit, Publish or Unpublish (`publish(!published)`) and Delete.
 */
export function rowActions({ archived, archive, published, edit, publish }) {
  return archived
    ? [
        el('button', { class: 'btn', text: t('channeladmin.restore'), attrs: { type: 'button' }, on: { click: archive.restore } }),
        el('button', { class: 'btn btn-danger', text: t('channeladmin.delete-forever'), attrs: { type: 'button' }, on: { click: archive.forever } }),
      ]
    : [
        el('button', { class: 'btn', text: t('channeladmin.edit'), attrs: { type: 'button' }, on: { click: edit } }),
        el('button', {
          class: 'btn',
          text: published ? t('channeladmin.unpublish') : t('channeladmin.publish'),
          attrs: { type: 'button' },
          on: { click: () => publish(!published) },
        }),
        el('button', { class: 'btn btn-ghost', text: t('channeladmin.delete'), attrs: { type: 'button' }, on: { click: archive.archive } }),
      ];
}

/** A row of a part's list: its handle (not in the archive), name and `meta`, published badge, actions. */
export function itemRow({ id, name, meta, archived, published, actions }) {
  return el('li', { class: 'admin-row', data: { id } }, [
    archived ? null : handle(name),
    el('span', { class: 'admin-row-title' }, [
      el('strong', { text: name }),
      el('span', { class: 'admin-row-meta', text: meta }),
    ]),
    el('span', { class: 'badge ' + (published ? 'badge-live' : 'badge-draft'), text: published ? t('channeladmin.published') : t('channeladmin.draft') }),
    el('span', { class: 'admin-row-actions' }, actions),
  ]);
}

/**
 * On `form`'s submit: clears `error`; when `check()` allows it, `send()`s the form; once it is
 * saved says `saved` in a toast of `ctx`, closes the `pane` and reads the list again (`load()`);
 * when it failed says why in `error`.
 */
export function submitForm(form, { error, check = () => true, send, ctx, saved, pane, load }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    if (!check()) return;
    try {
      await send();
      ctx.toast(saved);
      closePane(pane);
      load();
    } catch (failure) {
      error.textContent = errorText(failure);
    }
  });
}

/** A form's Cancel (calling `onCancel`) and Save buttons. */
export function formActions(onCancel) {
  return el('div', { class: 'admin-form-actions' }, [
    el('button', { class: 'btn', text: t('channeladmin.cancel'), attrs: { type: 'button' }, on: { click: onCancel } }),
    el('button', { class: 'btn btn-primary', text: t('channeladmin.save'), attrs: { type: 'submit' } }),
  ]);
}

/** Shows `form` in a part's form pane. */
export function openPane(pane, form) {
  pane.replaceChildren(form);
  pane.hidden = false;
}

/** Hides a part's form pane and empties it. */
export function closePane(pane) {
  pane.hidden = true;
  pane.replaceChildren();
}
