// The archive, the same in every part of the channel's admin (videos and their categories, radio
// stations, places and their categories, quizzes): "Delete" archives an item (it leaves the
// audience's pages), the archive restores it or deletes it for ever; and the switch between a
// part's current items and its archive. The server's side is ArchivableRoutes.swift.
import { api } from '../core/api.js';
import { errorText, t } from '../core/i18n.js';
import { confirmDialog, el } from '../core/ui.js';

/**
 * The archive's three actions on the item at `path` (its API path, as `/api/v1/channel/pois/<id>`):
 * `archive()` (DELETE), `restore()` (POST …/restore) and `forever()` (DELETE …?permanent=true,
 * after the question `confirm` when there is one). Each says `archived`, `restored` or `deleted`
 * in a toast of the section's `ctx` when it is done (`null`: nothing), the server's reason when
 * it failed, and calls `done()` after, done or failed.
 */
export function archiveActions(path, { ctx, done, archived = null, confirm = null, restored = t('channeladmin.restored'), deleted = t('channeladmin.deleted') }) {
  const run = async (method, suffix, message) => {
    try {
      await api(path + suffix, { method });
      if (message) ctx.toast(message);
    } catch (error) {
      ctx.toast(errorText(error), { kind: 'error' });
    }
    return done();
  };
  return {
    archive: () => run('DELETE', '', archived),
    restore: () => run('POST', '/restore', restored),
    async forever() {
      if (confirm) {
        const sure = await confirmDialog({ title: t('channeladmin.delete-forever-title'), message: confirm, confirmLabel: t('channeladmin.delete-forever'), danger: true });
        if (!sure) return undefined;
      }
      return run('DELETE', '?permanent=true', deleted);
    },
  };
}

/**
 * The switch between a part's current items (`current` names them; "Current" by default) and its
 * archive: a group of two buttons, the chosen one aria-pressed, each with `data-status` and
 * `data-role=status-<status>`. Calls `onChange('all' | 'archived')` on a click, once the elements
 * of `hides` (an "Add" button) are hidden while the archive shows. `classes` are the group's and
 * the buttons' classes, as the part's page styles them.
 */
export function archiveSwitch({ current = t('channeladmin.current'), classes = ['cva-tabs', 'cva-tab'], hides = [], onChange }) {
  const [groupClass, buttonClass] = classes;
  const buttons = [['all', current], ['archived', t('channeladmin.archived')]].map(([status, label]) => el('button', {
    class: buttonClass, text: label, data: { status },
    attrs: { type: 'button', 'data-role': 'status-' + status, 'aria-pressed': String(status === 'all') },
  }));
  for (const button of buttons) {
    button.addEventListener('click', () => {
      for (const other of buttons) other.setAttribute('aria-pressed', String(other === button));
      for (const node of hides) node.hidden = button.dataset.status === 'archived';
      onChange(button.dataset.status);
    });
  }
  return el('div', { class: groupClass, attrs: { role: 'group', 'aria-label': t('channeladmin.show') } }, buttons);
}
