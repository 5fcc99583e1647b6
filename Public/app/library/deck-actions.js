// What one does to a deck from its card's menu: rename it, move it to a folder (a new one when
// there is none yet), delete it.

import { t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { toast, confirmDialog, promptDialog, chooseDialog } from '../core/ui.js';
import { folderOptions } from './folders.js';

/**
 * The deck actions of the library page: `state` is the page's ({folders, decks}), `render()`
 * draws it again, `createFolderNamed(name)` makes a folder (folders.js), errors go to
 * `handleError`. Returns {rename, move, remove}, each taking a deck.
 */
export function deckActions({ state, render, handleError, createFolderNamed }) {
  async function renameDeck(deck) {
    const title = await promptDialog({ title: t('library.rename-deck'), label: t('library.field-title'), value: deck.title, confirmLabel: t('library.rename') });
    if (!title || title === deck.title) return;
    try {
      const updated = await api('/api/v1/decks/' + encodeURIComponent(deck.id), { method: 'PATCH', body: { title } });
      updateDeck(deck.id, { title: updated.title });
      toast(t('library.renamed', { title: updated.title }), { kind: 'success' });
    } catch (error) {
      handleError(error);
    }
  }

  async function moveDeck(deck) {
    if (!state.folders.length) {
      const name = await promptDialog({ title: t('library.move-new-folder'), label: t('library.folder-name'), confirmLabel: t('library.create-and-move') });
      if (!name) return;
      const folder = await createFolderNamed(name);
      if (folder) await moveTo(deck, folder.id);
      return;
    }
    const options = [{ value: '', label: t('library.no-folder') }, ...folderOptions(state.folders)];
    const choice = await chooseDialog({ title: t('library.move-title', { title: deck.title }), label: t('library.folder'), options, value: deck.folderId || '' });
    if (choice === undefined) return;
    await moveTo(deck, choice || null);
  }

  async function moveTo(deck, folderId) {
    if ((deck.folderId || null) === folderId) return;
    try {
      await api('/api/v1/decks/' + encodeURIComponent(deck.id), { method: 'PATCH', body: { folderId } });
      updateDeck(deck.id, { folderId });
      const folder = state.folders.find((f) => f.id === folderId);
      toast(folder ? t('library.moved-to', { name: folder.name }) : t('library.moved-top'), { kind: 'success' });
    } catch (error) {
      handleError(error);
    }
  }

  async function deleteDeck(deck) {
    const ok = await confirmDialog({
      title: t('library.delete-title', { title: deck.title }), message: t('library.delete-deck-message'),
      confirmLabel: t('library.delete'), danger: true,
    });
    if (!ok) return;
    try {
      await api('/api/v1/decks/' + encodeURIComponent(deck.id), { method: 'DELETE' });
      state.decks = state.decks.filter((d) => d.id !== deck.id);
      render();
      toast(t('library.deleted', { title: deck.title }));
    } catch (error) {
      handleError(error);
    }
  }

  function updateDeck(id, changes) {
    state.decks = state.decks.map((d) => (d.id === id ? { ...d, ...changes } : d));
    render();
  }

  return { rename: renameDeck, move: moveDeck, remove: deleteDeck };
}
