// The library's deck uploads: one at a time through the upload queue (media/uploader.js), from
// the file buttons or dropped anywhere on the page; several images make one deck; video and
// audio files go to the videos. Each processing deck is polled until it is ready or failed.

import { t, errorText } from '../core/i18n.js';
import { api, goToLogin } from '../core/api.js';
import { toast } from '../core/ui.js';
import { UploadQueue, ImageSet, isImage, uploadLimits, formatBytes } from '../media/uploader.js';
import { uploadCard } from './upload-cards.js';

const POLL_MS = 500;
const polling = new Set();
const grid = document.getElementById('decks');
const fileInput = document.getElementById('file-input');
const dropzone = document.getElementById('dropzone');

function titleFromFilename(name) {
  return name.replace(/\.(pdf|pptx?|key|odp|docx?|odt|png|jpe?g|webp|zip)$/i, '').trim() || t('library.untitled-deck');
}

/**
 * Wires the uploads of the library page: `state` is the page's ({decks, folder, view}); `videos`
 * takes the video and audio files (LibraryVideos); `render`, `renderDecks`, `renderFolders` and
 * `replaceCard(deck)` draw the page again. Returns {queue, uploadFiles, dismissUpload, poll}.
 */
export function mountDeckUploads({ state, videos, render, renderDecks, renderFolders, replaceCard }) {
  // One upload at a time; each file is checked (size, PDF) before it is sent, resumably (its
  // metadata carries the title and folder, so the deck lands there). An image set goes in one POST
  // to `url`.
  const queue = new UploadQueue({
    target: 'deck',
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

  return { queue, uploadFiles, dismissUpload, poll };
}
