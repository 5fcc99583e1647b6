// The library's videos, beside its decks: upload (the Upload video button, or dropped on the page
// with the PDFs), upload progress then packaging progress (ffmpeg's, from the server), and a card
// per video with its poster, length and size, renamed or deleted from its menu. A ready video is
// shown on the stage from the presenter console's "Show a video".
//
// State for tests: #videos li.video-card[data-video-id][data-status][data-title] (uploads:
// [data-upload][data-upload-state]); the card's [data-role=status], [data-role=duration],
// [data-role=error], [data-role=uploading|processing] progress bars.

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, icon, iconButton, toast, confirmDialog, promptDialog, chooseDialog } from '../core/ui.js';
import { UploadQueue, processingText, trackVideo, checkVideoFile, looksLikeMedia, uploadLimits, formatBytes } from '../media/uploader.js';
import { progressBar, uploadCard } from './upload-cards.js';
import { clockText } from '../media/video-stage.js';
import { editClip, clipSummary } from './clip-editor.js';
import { editCaptions } from './caption-editor.js';
import { isPackaging, videoProgressText, videoProgressFraction } from '../media/video-progress.js';

const POLL_MS = 500;

export class LibraryVideos {
  /**
   * @param {object} o
   * @param {HTMLElement} o.section   the Videos part of the page
   * @param {HTMLElement} o.grid      its list
   * @param {HTMLElement} o.empty     said when there is none
   * @param {() => string|null} o.folder  the folder in view (null: all)
   * @param {() => Array<{id, name}>} o.folders  the library's folders (a video moves into one)
   * @param {(error) => void} o.onError
   */
  constructor(o) {
    this.o = o;
    this.videos = [];
    this.polling = new Set();
    this.queue = new UploadQueue({
      target: 'video', // resumable; the metadata carries the title and folder
      url: (item) => '/api/v1/videos?title=' + encodeURIComponent(item.data.title)
        + (item.data.folderId ? '&folderId=' + encodeURIComponent(item.data.folderId) : ''),
      check: checkVideoFile,
      contentType: (file) => file.type || 'application/octet-stream',
      track: trackVideo,
    });
    this.queue.addEventListener('change', (event) => this.onUpload(event.detail));
    uploadLimits().then((limits) => {
      this.o.empty.textContent = t('library.no-videos-limits', {
        size: formatBytes(limits.maxVideoUploadBytes), minutes: Math.round(limits.maxVideoSeconds / 60),
      });
    }).catch(() => {});
  }

  /**
   * Fetches the videos; the page renders them (`render`) once its folders are in too: a card
   * drawn before them would lack its move button, and be drawn again a moment later under the
   * pointer.
   */
  async load() {
    try {
      this.videos = await api('/api/v1/videos');
    } catch (error) {
      this.o.onError(error);
      return;
    }
    for (const video of this.videos) if (isPackaging(video)) this.poll(video.id);
  }

  /** Files chosen or dropped: the video and audio files among them (the rest are the decks'). */
  take(files) {
    const media = files.filter(looksLikeMedia);
    for (const file of media) {
      const title = file.name.replace(/\.[a-z0-9]{2,5}$/i, '').trim() || t('library.untitled-video');
      this.queue.add(file, { title, folderId: this.o.folder() });
    }
    return files.filter((file) => !media.includes(file));
  }

  setHidden(hidden) {
    this.o.section.hidden = hidden;
  }

  render() {
    const folder = this.o.folder();
    const uploads = this.queue.items.filter((u) => folder === null || u.data.folderId === folder);
    const videos = this.videos.filter((v) => folder === null || v.folderId === folder);
    this.o.grid.replaceChildren(...uploads.map((u) => this.uploadCard(u)), ...videos.map((v) => this.card(v)));
    this.o.empty.hidden = videos.length + uploads.length > 0;
  }

  onUpload({ item, removed }) {
    if (removed) {
      this.render();
      return;
    }
    if (item.state === 'ready' || (item.state === 'failed' && item.answer)) {
      // In the library now (ready, or failed with its reason): its card says the rest.
      this.queue.dismiss(item);
      const video = item.state === 'ready' ? item.result : { ...item.answer, status: 'failed', error: { message: item.error } };
      this.videos = [video, ...this.videos.filter((v) => v.id !== video.id)];
      this.render();
      if (isPackaging(video)) this.poll(video.id); // playable, its ladder still packaged
      return;
    }
    if (item.state === 'failed') toast(t('library.not-uploaded', { name: item.name, reason: item.error }), { kind: 'error' });
    const card = this.o.grid.querySelector('[data-upload="' + item.key + '"]');
    if (card) card.replaceWith(this.uploadCard(item));
    else this.render();
  }

  uploadCard(upload) {
    return uploadCard(upload, { onDismiss: (item) => this.queue.dismiss(item), cls: 'video-card' });
  }

  card(video) {
    const ready = video.status === 'ready';
    const failed = video.status === 'failed';
    const thumb = el('div', { class: 'deck-thumb' + (failed ? ' is-failed' : ''), attrs: { 'aria-hidden': 'true' } });
    if (ready && video.posterUrl) thumb.append(el('img', { attrs: { src: video.posterUrl, alt: '', loading: 'lazy' } }));
    else thumb.append(icon(failed ? 'alert' : video.hasVideo === false ? 'volume' : 'film', 36));
    if (ready && video.duration) thumb.append(el('span', { class: 'pages-badge', text: clockText(video.duration), attrs: { 'data-role': 'duration' } }));
    const pill = { ready: t('library.status-ready'), queued: t('upload.state-waiting'), processing: t('library.video-packaging'), failed: t('library.status-failed') }[video.status] || video.status;
    const meta = el('div', { class: 'deck-meta' }, [
      el('span', { class: 'status-pill status-' + (ready ? 'ready' : failed ? 'failed' : 'processing'), text: pill, attrs: { 'data-role': 'status' } }),
    ]);
    if (ready) {
      const shape = video.hasVideo ? video.width + '×' + video.height : t('library.audio');
      meta.append(el('span', { class: 'deck-pages', text: shape + ' · ' + formatBytes(video.sourceBytes) }));
      const clip = clipSummary(video);
      if (clip) meta.append(el('span', { class: 'deck-pages clip-badge', text: clip, attrs: { 'data-role': 'clip-badge' } }));
      meta.append(this.captionBadge(video));
    }
    const body = el('div', { class: 'deck-body' }, [el('div', { class: 'deck-title', text: video.title, attrs: { title: video.title } }), meta]);
    // Queued (place in line, time left), packaging, or playable while its ladder is packaged.
    const packaging = videoProgressText(video, processingText);
    if (packaging) {
      const bar = progressBar(video.status === 'queued' ? 0 : videoProgressFraction(video), packaging, true);
      bar.dataset.stage = video.status === 'ready' ? 'renditions' : video.status;
      body.append(bar);
    }
    if (failed) {
      const message = video.error && (video.error.code || video.error.message) ? errorText(video.error) : t('library.video-failed');
      body.append(el('p', { class: 'deck-error', attrs: { 'data-role': 'error' } }, [icon('alert', 16), el('span', { text: message })]));
    }
    const actions = el('div', { class: 'deck-actions' }, [
      ready ? iconButton('film', t('library.clip-edit'), { cls: 'btn', on: { click: () => this.editClip(video) }, attrs: { 'data-action': 'edit-clip', 'aria-label': t('library.clip-edit-named', { title: video.title }) } }) : null,
      ready ? iconButton('message', t('library.captions'), { cls: 'btn', on: { click: () => this.editCaptions(video) }, attrs: { 'data-action': 'edit-captions', 'aria-label': t('library.captions-named', { title: video.title }) } }) : null,
      ready ? iconButton('edit', t('library.rename'), { cls: 'btn', on: { click: () => this.rename(video) }, attrs: { 'data-action': 'rename-video', 'aria-label': t('library.rename-named', { title: video.title }) } }) : null,
      ready && this.o.folders().length ? iconButton('folder', t('library.move'), { cls: 'btn', on: { click: () => this.move(video) }, attrs: { 'data-action': 'move-video', 'aria-label': t('library.move-named', { title: video.title }) } }) : null,
      iconButton('trash', t('library.delete'), { cls: 'btn', on: { click: () => this.remove(video) }, attrs: { 'data-action': 'delete-video', 'aria-label': t('library.delete-named', { title: video.title }) } }),
    ]);
    return el('li', {
      class: 'deck-card video-card' + (failed ? ' is-failed' : ''),
      attrs: { 'data-video-id': video.id, 'data-status': video.status, 'data-title': video.title },
    }, [thumb, body, actions]);
  }

  /** Polls a video being packaged until it is ready or failed. */
  poll(id) {
    if (this.polling.has(id)) return;
    this.polling.add(id);
    const tick = async () => {
      let video;
      try {
        video = await api('/api/v1/videos/' + encodeURIComponent(id));
      } catch (error) {
        if (error.status === 404) {
          this.polling.delete(id);
          this.videos = this.videos.filter((v) => v.id !== id);
          this.render();
          return;
        }
        setTimeout(tick, POLL_MS * 4);
        return;
      }
      this.videos = this.videos.map((v) => (v.id === id ? video : v));
      this.render();
      if (isPackaging(video)) setTimeout(tick, POLL_MS);
      else this.polling.delete(id);
    };
    setTimeout(tick, POLL_MS);
  }

  async rename(video) {
    const title = await promptDialog({ title: t('library.rename-video'), label: t('library.field-title'), value: video.title });
    if (!title || title.trim() === video.title) return;
    try {
      const updated = await api('/api/v1/videos/' + encodeURIComponent(video.id), { method: 'PATCH', body: { title: title.trim() } });
      this.videos = this.videos.map((v) => (v.id === video.id ? updated : v));
      this.render();
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }

  /** Which languages the clip has captions in, or that it has none (WCAG 1.2.2), filled in when known. */
  captionBadge(video) {
    const badge = el('span', { class: 'deck-pages caption-badge', attrs: { 'data-role': 'captions-badge', hidden: true } });
    const show = (languages) => {
      badge.dataset.captions = languages.length ? languages.join(' ') : 'none';
      badge.textContent = languages.length ? 'CC ' + languages.join(', ') : t('library.captions-missing');
      badge.classList.toggle('is-missing', !languages.length);
      badge.hidden = false;
    };
    this.captionLanguages = this.captionLanguages || new Map();
    if (this.captionLanguages.has(video.id)) show(this.captionLanguages.get(video.id));
    else {
      api('/api/v1/videos/' + encodeURIComponent(video.id) + '/captions').then((tracks) => {
        this.captionLanguages.set(video.id, tracks.map((track) => track.language));
        show(this.captionLanguages.get(video.id));
      }).catch(() => {});
    }
    return badge;
  }

  /** Captions (caption-editor.js): the card says which languages it has after. */
  async editCaptions(video) {
    const languages = await editCaptions(video);
    (this.captionLanguages = this.captionLanguages || new Map()).set(video.id, languages);
    this.render();
  }

  /** Trim and loop (clip-editor.js): the card shows what was saved. */
  async editClip(video) {
    const updated = await editClip(video);
    if (!updated) return;
    this.videos = this.videos.map((v) => (v.id === video.id ? updated : v));
    this.render();
  }

  async move(video) {
    const options = [{ value: '', label: t('library.no-folder') }, ...this.o.folders().map((f) => ({ value: f.id, label: f.name }))];
    const choice = await chooseDialog({ title: t('library.move-title', { title: video.title }), label: t('library.folder'), options, value: video.folderId || '' });
    if (choice === undefined) return;
    try {
      const updated = await api('/api/v1/videos/' + encodeURIComponent(video.id), { method: 'PATCH', body: { folderId: choice || null } });
      this.videos = this.videos.map((v) => (v.id === video.id ? updated : v));
      this.render();
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }

  async remove(video) {
    const sure = await confirmDialog({
      title: t('library.delete-title', { title: video.title }), message: t('library.delete-video-message'),
      confirmLabel: t('library.delete'), danger: true,
    });
    if (!sure) return;
    try {
      await api('/api/v1/videos/' + encodeURIComponent(video.id), { method: 'DELETE' });
      this.videos = this.videos.filter((v) => v.id !== video.id);
      this.render();
      toast(t('library.deleted', { title: video.title }), { kind: 'success' });
    } catch (error) {
      toast(errorText(error), { kind: 'error' });
    }
  }
}
