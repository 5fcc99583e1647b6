// A shot's version history: the moments it changed (one per burst of one person's edits), each
// drawn small, and "Restore" to put that version back (a restoreShot edit, which is itself undoable
// and shows for everyone at once).
//
// State for tests: dialog#shot-history, li[data-seq] per version, button[data-action=restore].

import { api } from '../core/api.js';
import { errorText, formatDate, t } from '../core/i18n.js';
import { el, icon, modalDialog, toast } from '../core/ui.js';
import { drawShot, aspectValue } from './common.js';

/** Opens the history of `shotId` of the project `record`; restores through `doc` (a StoryDoc). */
export async function openShotHistory(record, shotId, doc) {
  const base = '/api/v1/storyboards/' + encodeURIComponent(record.id) + '/shots/' + encodeURIComponent(shotId);
  const list = el('ol', { class: 'sb-history', attrs: { 'aria-label': t('storyboard.versions') } }, [el('li', { class: 'sb-history-empty', text: t('storyboard.loading') })]);
  const close = el('button', { class: 'btn', attrs: { type: 'button' }, text: t('storyboard.close') });
  const { dialog } = modalDialog({ title: t('storyboard.shot-history'), id: 'shot-history', body: [list], actions: [close], cls: 'sb-history-dialog' });
  close.addEventListener('click', () => dialog.close());
  let versions;
  try {
    versions = await api(base + '/versions');
  } catch (error) {
    list.replaceChildren(el('li', { class: 'sb-history-empty', text: errorText(error) }));
    return;
  }
  if (!versions.length) {
    list.replaceChildren(el('li', { class: 'sb-history-empty', text: t('storyboard.no-changes') }));
    return;
  }
  const aspect = aspectValue(record.aspectRatio);
  list.replaceChildren(...versions.map((version, index) => {
    const canvas = el('canvas', { class: 'sb-history-thumb', attrs: { width: 160, height: Math.round(160 / aspect), 'aria-hidden': 'true' } });
    const when = new Date(version.at);
    const restore = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'restore' } }, [icon('undo', 16), el('span', { text: index === 0 ? t('storyboard.current') : t('storyboard.restore') })]);
    restore.disabled = index === 0;
    restore.addEventListener('click', async () => {
      restore.disabled = true;
      try {
        const shot = await api(base + '/versions/' + version.seq);
        if (doc.edit({ op: 'restoreShot', shot }) !== null) {
          toast(t('storyboard.restored-at', { time: formatDate(when, { timeStyle: 'medium' }) }));
          dialog.close();
        }
      } catch (error) {
        toast(errorText(error), { kind: 'error' });
        restore.disabled = false;
      }
    });
    // Drawn when it is fetched: a long history fetches only what is looked at first.
    api(base + '/versions/' + version.seq).then((shot) => drawShot(canvas, shot)).catch(() => {});
    return el('li', { class: 'sb-history-item', attrs: { 'data-seq': String(version.seq) } }, [
      canvas,
      el('div', { class: 'sb-history-text' }, [
        el('strong', { text: version.authorName }),
        el('span', { text: formatDate(when, { dateStyle: 'medium', timeStyle: 'short' }) }),
      ]),
      restore,
    ]);
  }));
}
