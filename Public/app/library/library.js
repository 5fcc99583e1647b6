// The presenter's library: folders, decks, uploads with progress, rename/move/delete, go live.
// This entry module wires the library's parts together: the folders (folders.js), the deck cards
// (deck-card.js) and their actions (deck-actions.js), the uploads (deck-uploads.js), the videos,
// the storyboards and the history of past sessions (history.js).

import { t, errorText, formatNumber } from '../core/i18n.js';
import { api, goToLogin } from '../core/api.js';
import { startPage, signedInUser } from '../core/page.js';
import { el, icon, toast } from '../core/ui.js';
import { openGoLive } from './go-live.js';
import { LibraryVideos } from './videos.js';
import { LibraryStoryboards } from '../storyboard/library.js';
import { uploadCard } from './upload-cards.js';
import { folderTree, folderPath, mountFolderTools } from './folders.js';
import { deckCard } from './deck-card.js';
import { deckActions } from './deck-actions.js';
import { mountDeckUploads } from './deck-uploads.js';
import { mountHistory } from './history.js';

const state = {
  user: null,
  folders: [],
  decks: [],
  folder: null, // null = all decks
  view: 'decks', // or 'history': past sessions and rooms
  history: { entries: [], next: null, loaded: false, loading: false },
};
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
const dropzone = document.getElementById('dropzone');
const videos = new LibraryVideos({
  section: document.getElementById('videos-section'),
  grid: document.getElementById('videos'),
  empty: document.getElementById('videos-empty'),
  folder: () => state.folder,
  // For their "Move to folder" choosers: in tree order, each named by its path.
  folders: () => folderTree(state.folders).map(({ folder }) => ({ ...folder, name: folderPath(state.folders, folder) })),
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
  folders: () => folderTree(state.folders).map(({ folder }) => ({ ...folder, name: folderPath(state.folders, folder) })),
  onError: (error) => handleError(error),
});
const videoInput = document.getElementById('video-input');
document.getElementById('upload-video').addEventListener('click', () => videoInput.click());
videoInput.addEventListener('change', () => {
  uploads.uploadFiles([...videoInput.files]);
  videoInput.value = '';
});

// The parts of the page, each given what it reads and how to draw the page again.
const uploads = mountDeckUploads({ state, videos, render, renderDecks, renderFolders, replaceCard });
const createFolderNamed = mountFolderTools({ state, render, selectFolder, handleError });
const cardActions = {
  open: openDeck, goLive: openGoLive, ...deckActions({ state, render, handleError, createFolderNamed }),
};
mountHistory({
  history: state.history, onError: handleError,
  show: () => {
    state.view = 'history';
    renderView();
  },
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
  offerGoLive();
}

/** `?golive=<deck id>` (a course's link to a deck, LTI): the Go live dialog for that deck, once.
 * Not one of ours: a deck another teacher placed in the course the launch came from, which the
 * server lets the course's teachers read and start (their launch vouched for it). */
async function offerGoLive() {
  const url = new URL(location.href);
  const id = url.searchParams.get('golive');
  if (!id) return;
  url.searchParams.delete('golive');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  let deck = state.decks.find((d) => d.id === id);
  const courseDeck = !deck;
  if (courseDeck) deck = await api('/api/v1/decks/' + encodeURIComponent(id)).catch(() => null);
  if (deck && deck.status === 'ready') openGoLive(deck, { courseDeck });
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
    for (const deck of state.decks) if (deck.status === 'processing') uploads.poll(deck.id);
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
    // Theirs: presented or co-hosted (a course's other teacher) by the signed-in person.
    const mine = sessions.filter((s) => s.yours && s.live !== false);
    if (!mine.length) {
      banner.hidden = true;
      return;
    }
    const first = mine[0];
    const consoleOf = (s) => (s.kind === 'room'
      ? '/r/' + encodeURIComponent(s.code) + '/moderate' : '/present/' + encodeURIComponent(s.code));
    // One session: "Open console"; several: a console link for each, named by its title and code.
    const links = mine.length === 1
      ? [el('a', { class: 'btn btn-sm', text: t('library.open-console'), attrs: { href: consoleOf(first) } })]
      : mine.map((s) => el('a', { class: 'btn btn-sm', text: `${s.title} · ${s.code}`,
        attrs: { href: consoleOf(s), title: t('library.open-console') } }));
    banner.replaceChildren(
      icon('broadcast'),
      el('span', { class: 'grow', text: mine.length === 1
        ? t('library.live-with', { title: first.title, code: first.code })
        : t('library.live-sessions', { count: mine.length }) }),
      ...(mine.length === 1 ? links : [el('div', { class: 'live-banner-links' }, links)]),
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
  folderList.replaceChildren(item(null), ...folderTree(state.folders).map(({ folder, depth }) => {
    const li = item(folder);
    li.dataset.depth = String(Math.min(depth, 6));
    return li;
  }));
  if (state.view === 'history') renderView();
}

function renderDecks() {
  const pending = uploads.queue.items.filter((u) => state.folder === null || u.data.folderId === state.folder);
  const decks = decksInView();
  grid.replaceChildren(...pending.map((upload) => uploadCard(upload, { onDismiss: uploads.dismissUpload })), ...decks.map((deck) => deckCard(deck, cardActions)));
  emptyState.hidden = state.view === 'history' || !['all', 'decks'].includes(state.kind) || decks.length + pending.length > 0;
}

function replaceCard(deck) {
  const existing = grid.querySelector('[data-deck-id="' + CSS.escape(deck.id) + '"]');
  const inView = state.folder === null || deck.folderId === state.folder;
  if (existing && inView) {
    const focusedAction = document.activeElement && existing.contains(document.activeElement)
      ? document.activeElement.dataset.action : null;
    const card = deckCard(deck, cardActions);
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
