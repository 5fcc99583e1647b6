// The presenter's library: folders, decks, uploads with progress, rename/move/delete, go live.

import { t, errorText, formatNumber, formatDate } from '../core/i18n.js';
import { api, goToLogin } from '../core/api.js';
import { startPage, signedInUser } from '../core/page.js';
import {
  el, icon, iconButton, toast, confirmDialog, promptDialog, chooseDialog, plural,
} from '../core/ui.js';
import { openGoLive } from './go-live.js';
import { UploadQueue, ImageSet, isImage, processingText, uploadLimits, formatBytes } from '../media/uploader.js';
import { LibraryVideos } from './videos.js';
import { LibraryStoryboards } from '../storyboard/library.js';
import { progressBar, uploadCard } from './upload-cards.js';

const POLL_MS = 500;

const state = {
  user: null,
  folders: [],
  decks: [],
  folder: null, // null = all decks
  view: 'decks', // or 'history': past sessions and rooms
  history: { entries: [], next: null, loaded: false, loading: false },
};
const polling = new Set();
const KINDS = ['all', 'decks', 'videos', 'storyboards'];
state.kind = (() => {
  try {
    const kind = localStorage.getItem('podium.library.kind');
    return KINDS.includes(kind) ? kind : 'all';
  } catch (_) {
    return 'all';
  }
})();
for (const chip of document.querySelectorAll('#library-kinds [data-kind]')) {
  chip.addEventListener('click', () => {
    state.kind = chip.dataset.kind;
    try {
      localStorage.setItem('podium.library.kind', state.kind);
    } catch (_) {
      // private mode: not kept
    }
    renderDecks();
    renderView();
  });
}

const grid = document.getElementById('decks');
const emptyState = document.getElementById('decks-empty');
const folderList = document.getElementById('folders');
const folderTitle = document.getElementById('folder-title');
const fileInput = document.getElementById('file-input');
const dropzone = document.getElementById('dropzone');

const videos = new LibraryVideos({
  section: document.getElementById('videos-section'),
  grid: document.getElementById('videos'),
  empty: document.getElementById('videos-empty'),
  folder: () => state.folder,
  // For their "Move to folder" choosers: in tree order, each named by its path.
  folders: () => folderTree().map(({ folder }) => ({ ...folder, name: folderPath(folder) })),
  onError: (error) => handleError(error),
});
// Storyboards (storyboard/library.js), under the videos.
const storyboards = new LibraryStoryboards({
  section: document.getElementById('storyboards-section'),
  grid: document.getElementById('storyboards'),
  empty: document.getElementById('storyboards-empty'),
  newButton: document.getElementById('new-storyboard-button'),
  folder: () => state.folder,
  // For their "Move to folder" choosers: in tree order, each named by its path.
  folders: () => folderTree().map(({ folder }) => ({ ...folder, name: folderPath(folder) })),
  onError: (error) => handleError(error),
});
const videoInput = document.getElementById('video-input');
document.getElementById('upload-video').addEventListener('click', () => videoInput.click());
videoInput.addEventListener('change', () => {
  uploadFiles([...videoInput.files]);
  videoInput.value = '';
});

// ---- start ----

async function start() {
  state.user = await signedInUser((error) => toast(errorText(error), { kind: 'error' }));
  if (!state.user) return;
  showUser();
  const saved = sessionStorage.getItem('podium.folder');
  await Promise.all([loadFolders(), loadDecks(), videos.load(), storyboards.load()]);
  if (saved && state.folders.some((f) => f.id === saved)) state.folder = saved;
  render();
  loadLiveBanner();
}

function showUser() {
  const name = state.user.name || state.user.email;
  document.getElementById('user-name').textContent = name;
  document.getElementById('user-avatar').textContent = (name || '?').trim().charAt(0).toUpperCase();
  document.getElementById('user-chip').hidden = false;
}

async function loadFolders() {
  try {
    state.folders = await api('/api/v1/folders');
  } catch (error) {
    handleError(error);
  }
}

async function loadDecks() {
  try {
    state.decks = await api('/api/v1/decks');
    for (const deck of state.decks) if (deck.status === 'processing') poll(deck.id);
  } catch (error) {
    handleError(error);
  }
}

function handleError(error) {
  if (error.status === 401) {
    goToLogin();
    return;
  }
  toast(errorText(error), { kind: 'error' });
}

async function loadLiveBanner() {
  const banner = document.getElementById('live-banner');
  try {
    const sessions = await api('/api/v1/sessions?live=true');
    const mine = sessions.filter((s) => s.presenter === state.user.name && s.live !== false);
    if (!mine.length) {
      banner.hidden = true;
      return;
    }
    const first = mine[0];
    banner.replaceChildren(
      icon('broadcast'),
      el('span', { class: 'grow', text: mine.length === 1
        ? t('library.live-with', { title: first.title, code: first.code })
        : t('library.live-sessions', { count: mine.length }) }),
      el('a', { class: 'btn btn-sm', text: t('library.open-console'), attrs: { href: first.kind === 'room'
        ? '/r/' + encodeURIComponent(first.code) + '/moderate' : '/present/' + encodeURIComponent(first.code) } }),
    );
    banner.hidden = false;
  } catch (_) {
    banner.hidden = true;
  }
}

// ---- rendering ----

function decksInView() {
  return state.folder === null ? state.decks : state.decks.filter((d) => d.folderId === state.folder);
}

function render() {
  renderFolders();
  renderDecks();
  videos.render();
  storyboards.render();
  renderView();
}

/** The decks, or the history of sessions and rooms: one or the other fills the main column. */
function renderView() {
  const history = state.view === 'history';
  document.getElementById('history').hidden = !history;
  document.getElementById('past-item').classList.toggle('is-current', history);
  document.getElementById('past-button').setAttribute('aria-current', history ? 'true' : 'false');
  // One kind (remembered), or everything: storyboards without scrolling past every deck and video.
  const shows = (kind) => !history && (state.kind === 'all' || state.kind === kind);
  document.getElementById('library-kinds').hidden = history;
  for (const chip of document.querySelectorAll('#library-kinds [data-kind]')) chip.setAttribute('aria-pressed', chip.dataset.kind === state.kind ? 'true' : 'false');
  grid.hidden = !shows('decks');
  if (!shows('decks')) emptyState.hidden = true;
  videos.setHidden(!shows('videos'));
  storyboards.setHidden(!shows('storyboards'));
  dropzone.classList.toggle('is-hidden', history || state.kind === 'storyboards');
  if (history) {
    emptyState.hidden = true;
    folderTitle.textContent = t('library.past-sessions');
    document.getElementById('folder-tools').hidden = true;
    document.title = t('common.page-title', { title: t('library.past-sessions') });
    for (const item of folderList.querySelectorAll('.folder-item')) item.classList.remove('is-current');
    for (const button of folderList.querySelectorAll('.folder-button')) button.removeAttribute('aria-current');
  }
}

function renderFolders() {
  const current = state.folders.find((f) => f.id === state.folder);
  folderTitle.textContent = current ? current.name : t('library.all-decks');
  document.getElementById('folder-tools').hidden = !current;
  document.title = t('common.page-title', { title: current ? current.name : t('library.library') });
  const item = (folder) => {
    const id = folder ? folder.id : null;
    const count = folder ? state.decks.filter((d) => d.folderId === folder.id).length : state.decks.length;
    const isCurrent = state.folder === id;
    const button = el('button', {
      class: 'folder-button',
      attrs: { type: 'button', 'aria-current': isCurrent ? 'true' : null, 'data-folder-id': id || '' },
      on: { click: () => selectFolder(id) },
    }, [icon(folder ? 'folder' : 'grid', 18), el('span', { class: 'name', text: folder ? folder.name : t('library.all-decks') }), el('span', { class: 'count', text: formatNumber(count) })]);
    const li = el('li', { class: 'folder-item' + (isCurrent ? ' is-current' : '') }, [button]);
    return li;
  };
  folderList.replaceChildren(item(null), ...folderTree().map(({ folder, depth }) => {
    const li = item(folder);
    li.dataset.depth = String(Math.min(depth, 6));
    return li;
  }));
  if (state.view === 'history') renderView();
}

/** The folders in tree order (each after its parent, siblings by name) with their depth. */
function folderTree() {
  const children = new Map();
  const known = new Set(state.folders.map((f) => f.id));
  for (const folder of state.folders) {
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
function folderPath(folder) {
  const names = [];
  const seen = new Set();
  for (let f = folder; f && !seen.has(f.id); f = state.folders.find((g) => g.id === f.parentId)) {
    seen.add(f.id);
    names.unshift(f.name);
  }
  return names.join(' / ');
}

/** The folders one may file into, as chooser options, in tree order; `except` and what it holds left out. */
function folderOptions(except = null) {
  const inside = (folder) => {
    for (let f = folder, n = 0; f && n < 64; f = state.folders.find((g) => g.id === f.parentId), n += 1) {
      if (f.id === except) return true;
    }
    return false;
  };
  return folderTree().filter(({ folder }) => !inside(folder)).map(({ folder }) => ({ value: folder.id, label: folderPath(folder) }));
}

function renderDecks() {
  const uploads = queue.items.filter((u) => state.folder === null || u.data.folderId === state.folder);
  const decks = decksInView();
  grid.replaceChildren(...uploads.map((upload) => uploadCard(upload, { onDismiss: dismissUpload })), ...decks.map(deckCard));
  emptyState.hidden = state.view === 'history' || !['all', 'decks'].includes(state.kind) || decks.length + uploads.length > 0;
}

function deckCard(deck) {
  const ready = deck.status === 'ready';
  const failed = deck.status === 'failed';
  const thumb = el('button', {
    class: 'deck-thumb' + (failed ? ' is-failed' : ''),
    attrs: { type: 'button', 'aria-label': t('library.open-named', { title: deck.title }), tabindex: ready ? null : '-1', disabled: !ready },
    on: { click: () => openDeck(deck) },
  });
  if (deck.thumbnailUrl) thumb.append(el('img', { attrs: { src: deck.thumbnailUrl, alt: '', loading: 'lazy' } }));
  else thumb.append(icon(failed ? 'alert' : 'film', 36));
  if (ready && deck.pageCount) thumb.append(el('span', { class: 'pages-badge', text: formatNumber(deck.pageCount) }));

  const meta = el('div', { class: 'deck-meta' });
  const pill = ['ready', 'processing', 'failed'].includes(deck.status) ? t('library.status-' + deck.status) : deck.status;
  meta.append(el('span', { class: 'status-pill status-' + deck.status, text: pill, attrs: { 'data-role': 'status' } }));
  if (deck.pageCount) meta.append(el('span', { class: 'deck-pages', text: plural('library.pages', deck.pageCount), attrs: { 'data-role': 'pages' } }));
  const body = el('div', { class: 'deck-body' }, [el('div', { class: 'deck-title', text: deck.title, attrs: { title: deck.title } }), meta]);
  if (deck.status === 'processing') {
    const p = deck.progress;
    const fraction = p && p.total ? p.done / p.total : 0;
    body.append(progressBar(fraction, processingText(p), true));
  }
  if (failed) {
    const message = deck.error && (deck.error.code || deck.error.message) ? errorText(deck.error) : t('library.pdf-failed');
    body.append(el('p', { class: 'deck-error', attrs: { 'data-role': 'error' } }, [icon('alert', 16), el('span', { text: message })]));
  }

  const actions = el('div', { class: 'deck-actions' });
  const menu = el('div', { class: 'menu', attrs: { role: 'menu', hidden: true, 'aria-label': t('library.more-actions', { title: deck.title }) } });
  const more = el('button', {
    class: 'btn btn-more', attrs: { type: 'button', 'aria-label': t('library.more-actions', { title: deck.title }), 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'data-action': 'more', title: t('library.more') },
  }, [icon('more')]);
  const closeMenu = () => {
    menu.hidden = true;
    more.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', outside, true);
  };
  const outside = (event) => {
    if (!menu.contains(event.target) && event.target !== more && !more.contains(event.target)) closeMenu();
  };
  more.addEventListener('click', () => {
    if (!menu.hidden) {
      closeMenu();
      return;
    }
    for (const other of document.querySelectorAll('.menu:not([hidden])')) other.hidden = true;
    menu.hidden = false;
    more.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', outside, true);
    const first = menu.querySelector('button');
    if (first) first.focus();
  });
  menu.addEventListener('keydown', (event) => {
    const items = [...menu.querySelectorAll('button')];
    const index = items.indexOf(document.activeElement);
    if (event.key === 'Escape') {
      closeMenu();
      more.focus();
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      items[(index + 1) % items.length].focus();
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      items[(index - 1 + items.length) % items.length].focus();
    }
  });
  const menuItem = (iconName, label, action, handler, danger = false) =>
    el('button', {
      class: 'menu-item' + (danger ? ' danger' : ''), attrs: { type: 'button', role: 'menuitem', 'data-action': action },
      on: { click: () => { closeMenu(); handler(); } },
    }, [icon(iconName, 18), label]);
  if (!failed) {
    menu.append(menuItem('edit', t('library.rename'), 'rename', () => renameDeck(deck)));
    menu.append(menuItem('folder', t('library.move-to-folder'), 'move', () => moveDeck(deck)));
  }
  menu.append(menuItem('trash', t('library.delete'), 'delete', () => deleteDeck(deck), true));

  if (ready) {
    actions.append(
      iconButton('broadcast', t('library.go-live'), { cls: 'btn btn-primary', on: { click: () => openGoLive(deck) }, attrs: { 'data-action': 'golive', 'aria-label': t('library.go-live-with', { title: deck.title }) } }),
      iconButton('play', t('library.open'), { cls: 'btn', on: { click: () => openDeck(deck) }, attrs: { 'data-action': 'open', 'aria-label': t('library.open-rehearse', { title: deck.title }), title: t('library.rehearse-alone') } }),
    );
  } else if (failed) {
    actions.append(iconButton('trash', t('library.delete'), { cls: 'btn', on: { click: () => deleteDeck(deck) }, attrs: { 'data-action': 'delete-failed', 'aria-label': t('library.delete-named', { title: deck.title }) } }));
  }
  actions.append(more);
  return el('li', {
    class: 'deck-card' + (failed ? ' is-failed' : ''),
    attrs: { 'data-deck-id': deck.id, 'data-status': deck.status, 'data-title': deck.title },
  }, [thumb, body, actions, menu]);
}

function replaceCard(deck) {
  const existing = grid.querySelector('[data-deck-id="' + CSS.escape(deck.id) + '"]');
  const inView = state.folder === null || deck.folderId === state.folder;
  if (existing && inView) {
    const focusedAction = document.activeElement && existing.contains(document.activeElement)
      ? document.activeElement.dataset.action : null;
    const card = deckCard(deck);
    existing.replaceWith(card);
    if (focusedAction) {
      const again = card.querySelector('[data-action="' + focusedAction + '"]');
      if (again) again.focus();
    }
  } else {
    renderDecks();
  }
  renderFolders();
}

// ---- navigation ----

function selectFolder(id) {
  state.view = 'decks';
  state.folder = id;
  if (id) sessionStorage.setItem('podium.folder', id);
  else sessionStorage.removeItem('podium.folder');
  render();
}

function openDeck(deck) {
  location.assign('/decks/' + encodeURIComponent(deck.id));
}

// ---- uploads ----

function titleFromFilename(name) {
  return name.replace(/\.(pdf|pptx?|key|odp|docx?|odt|png|jpe?g|webp|zip)$/i, '').trim() || t('library.untitled-deck');
}

// One upload at a time; each file is checked (size, PDF) before it is sent. The folder goes in
// the upload's URL, so the deck lands there.
const queue = new UploadQueue({
  url: (item) => '/api/v1/decks?title=' + encodeURIComponent(item.data.title)
    + (item.data.folderId ? '&folderId=' + encodeURIComponent(item.data.folderId) : ''),
});

queue.addEventListener('change', (event) => {
  const { item, removed } = event.detail;
  if (removed) {
    renderDecks();
    return;
  }
  if (item.state === 'ready') {
    queue.dismiss(item);
    addDeck(item.result);
    settle(item.result);
    return;
  }
  if (item.state === 'failed') {
    if (item.errorCode === 'unauthorized') {
      goToLogin();
      return;
    }
    if (item.answer) {
      // Sent, then processing failed: the deck is in the library, failed, with its error.
      queue.dismiss(item);
      const deck = { ...(item.answer.deck || item.answer), status: 'failed', error: { message: item.error } };
      addDeck(deck);
      settle(deck);
      return;
    }
    toast(t('library.not-uploaded', { name: item.name, reason: item.error }), { kind: 'error' });
  }
  const card = grid.querySelector('[data-upload="' + item.key + '"]');
  if (card) card.replaceWith(uploadCard(item, { onDismiss: dismissUpload }));
  else renderDecks();
});

function addDeck(deck) {
  const placed = { ...deck };
  if (!placed.thumbnailUrl && placed.pages && placed.pages[0]) placed.thumbnailUrl = placed.pages[0].thumbnailUrl;
  delete placed.pages;
  state.decks = [placed, ...state.decks.filter((d) => d.id !== placed.id)];
  renderDecks();
  renderFolders();
}

// The server's limit, said before anyone picks a file.
uploadLimits().then((limits) => {
  document.getElementById('upload-limit').textContent = t('library.upload-limit', {
    pdf: formatBytes(limits.maxUploadBytes), video: formatBytes(limits.maxVideoUploadBytes),
  });
}).catch(() => {});

function uploadFiles(files) {
  if (state.view === 'history') {
    state.view = 'decks';
    render();
  }
  // Video and audio files go to the videos; the rest to the decks (whose queue says why a file is
  // not a deck). Several images chosen together make one deck, a page each.
  const decks = videos.take(files);
  const images = decks.filter(isImage);
  const uploads = images.length > 1 ? [new ImageSet(images), ...decks.filter((file) => !isImage(file))] : decks;
  for (const file of uploads) {
    const named = file instanceof ImageSet ? file.files[0] : file;
    queue.add(file, { title: titleFromFilename(named.name), folderId: state.folder });
  }
}

function dismissUpload(upload) {
  queue.dismiss(upload);
}

/** Polls a processing deck every 500 ms until it is ready or failed. */
function poll(id) {
  if (polling.has(id)) return;
  polling.add(id);
  const tick = async () => {
    let deck;
    try {
      deck = await api('/api/v1/decks/' + encodeURIComponent(id));
    } catch (error) {
      if (error.status === 404) {
        polling.delete(id);
        return;
      }
      if (error.status === 401) {
        goToLogin();
        return;
      }
      setTimeout(tick, POLL_MS * 4);
      return;
    }
    const before = state.decks.find((d) => d.id === id);
    if (!before) {
      polling.delete(id);
      return;
    }
    const merged = { ...before, ...deck };
    if (!deck.thumbnailUrl && deck.pages && deck.pages[0]) merged.thumbnailUrl = deck.pages[0].thumbnailUrl;
    delete merged.pages; // the list keeps cards small
    state.decks = state.decks.map((d) => (d.id === id ? merged : d));
    replaceCard(merged);
    if (merged.status === 'processing') {
      setTimeout(tick, POLL_MS);
    } else {
      polling.delete(id);
      settle(merged, before);
    }
  };
  setTimeout(tick, POLL_MS);
}

function settle(deck) {
  if (deck.status === 'ready') {
    toast(t('library.ready-toast', { title: deck.title, count: deck.pageCount }), { kind: 'success' });
  } else if (deck.status === 'failed') {
    const message = deck.error && (deck.error.code || deck.error.message) ? errorText(deck.error) : t('library.pdf-failed');
    toast(t('library.failed-toast', { title: deck.title, reason: message }), { kind: 'error' });
  }
}

fileInput.addEventListener('change', () => {
  uploadFiles([...fileInput.files]);
  fileInput.value = '';
});
document.getElementById('upload-button').addEventListener('click', () => fileInput.click());
document.getElementById('browse-button').addEventListener('click', () => fileInput.click());

// Drop anywhere on the page; the drop zone lights up.
let dragDepth = 0;
const hasFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes('Files');
document.addEventListener('dragenter', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  dragDepth += 1;
  document.body.classList.add('dragging');
});
document.addEventListener('dragover', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = 'copy';
});
document.addEventListener('dragleave', (event) => {
  if (!hasFiles(event)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) document.body.classList.remove('dragging');
});
document.addEventListener('drop', (event) => {
  if (!hasFiles(event)) return;
  event.preventDefault();
  dragDepth = 0;
  document.body.classList.remove('dragging');
  // Every file goes in the queue, which checks it and says why one cannot be sent.
  uploadFiles([...event.dataTransfer.files]);
});
dropzone.addEventListener('dragenter', () => dropzone.classList.add('is-over'));
dropzone.addEventListener('dragleave', () => dropzone.classList.remove('is-over'));
dropzone.addEventListener('drop', () => dropzone.classList.remove('is-over'));

// ---- deck actions ----

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
  const options = [{ value: '', label: t('library.no-folder') }, ...folderOptions()];
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

// ---- folders ----

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
  const options = [{ value: '', label: t('library.top-level') }, ...folderOptions(folder.id)];
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

// ---- history: past sessions and rooms, their reports and exports ----

const historyList = document.getElementById('past-list');
const historyMore = document.getElementById('past-more');

function duration(entry) {
  if (!entry.endedAt) return '';
  const minutes = Math.max(1, Math.round((new Date(entry.endedAt) - new Date(entry.createdAt)) / 60000));
  const unit = (value, name) => formatNumber(value, { style: 'unit', unit: name, unitDisplay: 'short' });
  const text = minutes < 60 ? unit(minutes, 'minute') : unit(Math.floor(minutes / 60), 'hour') + ' ' + unit(minutes % 60, 'minute');
  return el('time', { text, attrs: { datetime: 'PT' + minutes + 'M' } });
}

/** An export's name in the page's language, known by its file (the server names it in English). */
function exportLabel(file) {
  const name = (file.url || '').split('/').pop();
  if (file.format === 'pdf') return /clips/i.test(file.label || '') ? t('library.export-pdf-clips') : t('library.export-pdf');
  const known = { 'attendance.csv': 'attendance', 'polls.csv': 'polls', 'answers.csv': 'answers', 'questions.csv': 'questions', 'clips.csv': 'clips' }[name];
  return t('library.csv', { label: known ? t('library.export-' + known) : file.label });
}

function historyRow(entry) {
  const when = el('time', { text: formatDate(entry.createdAt, { dateStyle: 'medium', timeStyle: 'short' }), attrs: { datetime: entry.createdAt } });
  const parts = [entry.kind === 'room' ? t('library.room') : t('library.session'), when, duration(entry), t('library.code', { code: entry.code })].filter(Boolean);
  const meta = parts.flatMap((part, index) => (index ? [' · ', part] : [part]));
  const badges = el('span', { class: 'past-badges' });
  if (entry.live) badges.append(el('span', { class: 'status-pill status-live', text: t('library.live'), attrs: { 'data-role': 'live' } }));
  if (entry.hasPasscode) badges.append(el('span', { class: 'past-flag', attrs: { title: t('library.passcode'), 'aria-label': t('library.passcode') } }, [icon('lock', 14)]));
  if (entry.unlisted) badges.append(el('span', { class: 'past-flag', text: t('library.unlisted') }));
  const links = el('div', { class: 'past-links' });
  if (entry.consoleUrl) {
    links.append(el('a', { class: 'btn btn-sm btn-primary', attrs: { href: entry.consoleUrl, 'data-role': 'console' } }, [icon('broadcast', 16), t('library.open-console')]));
  }
  links.append(el('a', { class: 'btn btn-sm', attrs: { href: entry.reportUrl, 'data-role': 'report' } }, [icon('grid', 16), t('library.report')]));
  const exports = el('ul', { class: 'past-exports', attrs: { 'aria-label': t('library.exports-of', { title: entry.title }) } });
  for (const file of entry.exports) {
    exports.append(el('li', {}, [el('a', {
      class: 'past-export', text: exportLabel(file),
      attrs: { href: file.url, download: '', 'data-format': file.format },
    })]));
  }
  return el('li', { class: 'past-row', attrs: { 'data-code': entry.code, 'data-kind': entry.kind, 'data-live': String(entry.live) } }, [
    el('div', { class: 'past-main' }, [
      el('div', { class: 'past-title' }, [el('strong', { text: entry.title }), badges]),
      el('div', { class: 'past-meta' }, meta),
      exports,
    ]),
    links,
  ]);
}

async function loadHistory({ more = false } = {}) {
  const history = state.history;
  if (history.loading) return;
  history.loading = true;
  historyMore.disabled = true;
  try {
    const query = more && history.next ? '?before=' + encodeURIComponent(history.next) : '';
    const page = await api('/api/v1/history' + query);
    history.entries = more ? [...history.entries, ...page.sessions] : page.sessions;
    history.next = page.next || null;
    history.loaded = true;
    if (more) historyList.append(...page.sessions.map(historyRow));
    else historyList.replaceChildren(...history.entries.map(historyRow));
    document.getElementById('past-empty').hidden = history.entries.length > 0;
    historyMore.hidden = !history.next;
  } catch (error) {
    handleError(error);
  } finally {
    history.loading = false;
    historyMore.disabled = false;
  }
}

document.getElementById('past-button').addEventListener('click', () => {
  state.view = 'history';
  renderView();
  loadHistory();
});
historyMore.addEventListener('click', () => loadHistory({ more: true }));

// ---- account ----

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await api('/api/v1/auth/logout', { method: 'POST' });
  } catch (_) {
    // Signed out already, or the server is gone: either way, leave.
  }
  location.assign('/login');
});

startPage(start);
