// A shot's version history: the moments it changed (one per burst of one person's edits), each
// drawn small, and "Restore" to put that version back (a restoreShot edit, which is itself undoable
// and shows for everyone at once).
//
// State for tests: dialog#shot-history, li[data-seq] per version, button[data-action=restore].

import { api } from '../api.js';
import { el, icon, modalDialog, toast } from '../ui.js';
import { drawShot, aspectValue } from './common.js';

/** Opens the history of `shotId` of the project `record`; restores through `doc` (a StoryDoc). */
export async function openShotHistory(record, shotId, doc) {
  const base = '/api/v1/storyboards/' + encodeURIComponent(record.id) + '/shots/' + encodeURIComponent(shotId);
  const list = el('ol', { class: 'sb-history', attrs: { 'aria-label': 'Versions' } }, [el('li', { class: 'sb-history-empty', text: 'Loading…' })]);
  const close = el('button', { class: 'btn', attrs: { type: 'button' }, text: 'Close' });
  const { dialog } = modalDialog({ title: 'Shot history', id: 'shot-history', body: [list], actions: [close], cls: 'sb-history-dialog' });
  close.addEventListener('click', () => dialog.close());
  let versions;
  try {
    versions = await api(base + '/versions');
  } catch (error) {
    list.replaceChildren(el('li', { class: 'sb-history-empty', text: error.message }));
    return;
  }
  if (!versions.length) {
    list.replaceChildren(el('li', { class: 'sb-history-empty', text: 'No changes yet.' }));
    return;
  }
  const aspect = aspectValue(record.aspectRatio);
  list.replaceChildren(...versions.map((version, index) => {
    const canvas = el('canvas', { class: 'sb-history-thumb', attrs: { width: 160, height: Math.round(160 / aspect), 'aria-hidden': 'true' } });
    const when = new Date(version.at);
    const restore = el('button', { class: 'btn btn-sm', attrs: { type: 'button', 'data-action': 'restore' } }, [icon('undo', 16), el('span', { text: index === 0 ? 'Current' : 'Restore' })]);
    restore.disabled = index === 0;
    restore.addEventListener('click', async () => {
      restore.disabled = true;
      try {
        const shot = await api(base + '/versions/' + version.seq);
        if (doc.edit({ op: 'restoreShot', shot }) !== null) {
          toast(`Shot restored as it was at ${when.toLocaleTimeString()}.`);
          dialog.close();
        }
      } catch (error) {
        toast(error.message, { kind: 'error' });
        restore.disabled = false;
      }
    });
    // Drawn when it is fetched: a long history fetches only what is looked at first.
    api(base + '/versions/' + version.seq).then((shot) => drawShot(canvas, shot)).catch(() => {});
    return el('li', { class: 'sb-history-item', attrs: { 'data-seq': String(version.seq) } }, [
      canvas,
      el('div', { class: 'sb-history-text' }, [
        el('strong', { text: version.authorName }),
        el('span', { text: when.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) }),
      ]),
      restore,
    ]);
  }));
}
