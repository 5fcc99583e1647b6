// The library's folders: their tree (each after its parent, with its depth), a folder's path and
// the choices to file into; and the folder tools (new folder, sub-folder, rename, move, delete).

import { t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { toast, confirmDialog, promptDialog, chooseDialog } from '../core/ui.js';

/** The folders in tree order (each after its parent, siblings by name) with their depth. */
export function folderTree(folders) {
  const children = new Map();
  const known = new Set(folders.map((f) => f.id));
  for (const folder of folders) {
    const parent = folder.parentId && known.has(folder.parentId) ? folder.parentId : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(folder);
  }
  const out = [];
  const visit = (parent, depth) => {
    for (const folder of (children.get(parent) || []).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.some((entry) => entry.folder.id === folder.id)) continue;
      out.push({ folder, depth });
      visit(folder.id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

/** A folder's path for a chooser: "Films / Shorts". */
export function folderPath(folders, folder) {
  const names = [];
  const seen = new Set();
  for (let f = folder; f && !seen.has(f.id); f = folders.find((g) => g.id === f.parentId)) {
    seen.add(f.id);
    names.unshift(f.name);
  }
  return names.join(' / ');
}

/** The folders one may file into, as chooser options, in tree order; `except` and what it holds left out. */
export function folderOptions(folders, except = null) {
  const inside = (folder) => {
    for (let f = folder, n = 0; f && n < 64; f = folders.find((g) => g.id === f.parentId), n += 1) {
      if (f.id === except) return true;
    }
    return false;
  };
  return folderTree(folders).filter(({ folder }) => !inside(folder)).map(({ folder }) => ({ value: folder.id, label: folderPath(folders, folder) }));
}

/**
 * Wires the folder tools of the library page: `state` is the page's ({folders, decks, folder}),
 * `render()` draws it again, `selectFolder(id)` opens a folder, errors go to `handleError`.
 * Returns `createFolderNamed(name, parentId)` (the new folder, or null), for "Move to folder".
 */
export function mountFolderTools({ state, render, selectFolder, handleError }) {
  async function createFolderNamed(name, parentId = null) {
    try {
      const folder = await api('/api/v1/folders', { method: 'POST', body: parentId ? { name, parentId } : { name } });
      state.folders = [...state.folders, folder];
      render();
      return folder;
    } catch (error) {
      handleError(error);
      return null;
    }
  }

  document.getElementById('rename-folder').addEventListener('click', () => {
    const folder = state.folders.find((f) => f.id === state.folder);
    if (folder) renameFolder(folder);
  });
  document.getElementById('delete-folder').addEventListener('click', () => {
    const folder = state.folders.find((f) => f.id === state.folder);
    if (folder) deleteFolder(folder);
  });

  document.getElementById('new-folder').addEventListener('click', async () => {
    const name = await promptDialog({ title: t('library.new-folder'), label: t('library.name'), confirmLabel: t('library.create') });
    if (!name) return;
    const folder = await createFolderNamed(name);
    if (folder) selectFolder(folder.id);
  });
  document.getElementById('new-subfolder').addEventListener('click', async () => {
    const parent = state.folders.find((f) => f.id === state.folder);
    if (!parent) return;
    const name = await promptDialog({ title: t('library.new-folder-in', { name: parent.name }), label: t('library.name'), confirmLabel: t('library.create') });
    if (!name) return;
    const folder = await createFolderNamed(name, parent.id);
    if (folder) selectFolder(folder.id);
  });
  document.getElementById('move-folder').addEventListener('click', async () => {
    const folder = state.folders.find((f) => f.id === state.folder);
    if (!folder) return;
    const options = [{ value: '', label: t('library.top-level') }, ...folderOptions(state.folders, folder.id)];
    const choice = await chooseDialog({ title: t('library.move-title', { title: folder.name }), label: t('library.into'), options, value: folder.parentId || '' });
    if (choice === undefined || (choice || null) === (folder.parentId || null)) return;
    try {
      const moved = await api('/api/v1/folders/' + encodeURIComponent(folder.id), { method: 'PATCH', body: { parentId: choice || null } });
      state.folders = state.folders.map((f) => (f.id === folder.id ? { ...f, parentId: moved.parentId } : f));
      render();
    } catch (error) {
      handleError(error);
    }
  });

  async function renameFolder(folder) {
    const name = await promptDialog({ title: t('library.rename-folder'), label: t('library.name'), value: folder.name, confirmLabel: t('library.rename') });
    if (!name || name === folder.name) return;
    try {
      const updated = await api('/api/v1/folders/' + encodeURIComponent(folder.id), { method: 'PATCH', body: { name } });
      state.folders = state.folders.map((f) => (f.id === folder.id ? { ...f, name: updated.name } : f));
      render();
    } catch (error) {
      handleError(error);
    }
  }

  async function deleteFolder(folder) {
    const count = state.decks.filter((d) => d.folderId === folder.id).length;
    const parent = state.folders.find((f) => f.id === folder.parentId) || null;
    const ok = await confirmDialog({
      title: t('library.delete-folder-title', { name: folder.name }),
      message: parent ? t('library.delete-folder-to-parent', { parent: parent.name, count }) : t('library.delete-folder-to-top', { count }),
      confirmLabel: t('library.delete-folder'), danger: true,
    });
    if (!ok) return;
    try {
      await api('/api/v1/folders/' + encodeURIComponent(folder.id), { method: 'DELETE' });
      const up = parent ? parent.id : null;
      state.folders = state.folders.filter((f) => f.id !== folder.id).map((f) => (f.parentId === folder.id ? { ...f, parentId: up } : f));
      state.decks = state.decks.map((d) => (d.folderId === folder.id ? { ...d, folderId: up } : d));
      if (state.folder === folder.id) state.folder = null;
      render();
      toast(t('library.folder-deleted'));
    } catch (error) {
      handleError(error);
    }
  }

  return createFolderNamed;
}
