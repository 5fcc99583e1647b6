// A room's own clips on a presenter's page: upload one (it belongs to this room alone), follow its
// upload and packaging, and show it on the stage while in control. The server lists them at
// GET /api/v1/sessions/{code}/videos (the room's moderator and presenters).
//
//   new RoomVideos({ card, code, mayDrive: () => boolean, show: (videoId) => void, onStage: () => videoId|null })
//
// `card` holds #room-videos (the list), #room-videos-empty, #video-upload, #video-file and
// #video-upload-status. State for tests: #room-videos li[data-video-id][data-status]
// [data-title]; its [data-action=show-room-video].

import { api } from '../core/api.js';
import { t } from '../core/i18n.js';
import { el, toast } from '../core/ui.js';
import { uploadFile, checkVideoFile, processingText } from '../media/uploader.js';
import { clockText } from '../media/video-stage.js';
import { isPackaging, videoProgressText } from '../media/video-progress.js';
import { errorText, uploadLine } from './common.js';

const POLL_MS = 1000;

/** The room's clips, fetched from the server. */
export function roomVideos(code) {
  return api('/api/v1/sessions/' + encodeURIComponent(code) + '/videos', { headers: { 'X-Podium-Request': '1' } });
}

export class RoomVideos {
  constructor({ card, code, mayDrive, show, onStage = () => null }) {
    this.card = card;
    this.onStage = onStage; // the video on the stage now, if any
    this.code = code;
    this.mayDrive = mayDrive;
    this.show = show;
    this.videos = [];
    this.list = card.querySelector('#room-videos');
    this.empty = card.querySelector('#room-videos-empty');
    this.status = card.querySelector('#video-upload-status');
    this.button = card.querySelector('#video-upload');
    this.input = card.querySelector('#video-file');
    this.button.addEventListener('click', () => this.input.click());
    this.input.addEventListener('change', () => {
      const file = this.input.files && this.input.files[0];
      this.input.value = '';
      if (file) this.upload(file);
    });
    this.timer = null;
  }

  /** Asks the server for the room's clips (again while any is being packaged). */
  async refresh() {
    try {
      this.videos = await roomVideos(this.code);
    } catch (error) {
      if (error.status !== 403) toast(errorText(error), { kind: 'error' });
      return;
    }
    this.render();
    clearTimeout(this.timer);
    if (this.videos.some(isPackaging)) {
      this.timer = setTimeout(() => this.refresh(), POLL_MS);
    }
  }

  async upload(file) {
    const bar = el('span', { class: 'progress-bar' });
    const label = el('span', { class: 'room-upload-label', text: t('rooms.uploading', { file: file.name, percent: 0 }) });
    this.status.replaceChildren(label, el('span', { class: 'progress-track' }, [bar]));
    this.status.hidden = false;
    this.status.dataset.state = 'uploading';
    this.button.disabled = true;
    try {
      await checkVideoFile(file);
      const title = file.name.replace(/\.[a-z0-9]{2,5}$/i, '');
      // Resumable (target room-video): a lost connection is tried again, and the same file chosen
      // again after a reload continues where the server stopped.
      await uploadFile(file, {
        target: 'room-video', metadata: { title, session: this.code }, ...uploadLine(label, bar, file),
      });
      this.status.hidden = true;
      this.status.dataset.state = 'done';
      await this.refresh();
    } catch (error) {
      const reason = error && (error.code || error.message) ? errorText(error) : t('rooms.upload-failed');
      this.status.dataset.state = 'failed';
      label.textContent = t('rooms.upload-failed-file', { file: file.name, reason });
      toast(label.textContent, { kind: 'error' });
    } finally {
      this.button.disabled = false;
    }
  }

  render() {
    const driving = this.mayDrive();
    this.empty.hidden = this.videos.length > 0;
    this.list.replaceChildren(...this.videos.map((video) => {
      const ready = video.status === 'ready';
      const failed = video.status === 'failed';
      // A clip playable while its ladder is packaged says so beside its length.
      const packaging = videoProgressText(video, processingText);
      const detail = ready ? [clockText(video.duration), packaging].filter(Boolean).join(' · ')
        : failed ? (video.error ? errorText(video.error) : t('rooms.video-failed'))
        : packaging;
      const onStage = Boolean(this.onStage && this.onStage() === video.id);
      const item = el('li', {
        class: 'room-item video-item' + (ready || failed ? '' : ' is-processing'),
        attrs: { 'data-video-id': video.id, 'data-status': video.status, 'data-title': video.title },
      }, [
        ready && video.posterUrl ? el('img', { class: 'deck-mini', attrs: { src: video.posterUrl, alt: '', loading: 'lazy' } }) : el('span', { class: 'deck-mini' }),
        el('span', { class: 'room-item-main' }, [
          el('span', { class: 'room-item-title' }, [el('strong', { text: video.title }), onStage ? el('span', { class: 'badge badge-live', text: t('rooms.on-stage') }) : null]),
          el('span', { class: 'room-item-meta', text: detail, attrs: { 'data-role': failed ? 'error' : 'detail' } }),
        ]),
      ]);
      if (ready && !onStage) {
        item.append(el('button', {
          class: 'btn btn-sm', text: t('rooms.show'),
          attrs: {
            type: 'button', 'data-action': 'show-room-video', disabled: !driving,
            title: driving ? t('rooms.show-clip-title') : t('rooms.show-clip-ask'), 'aria-label': t('rooms.show-named', { title: video.title }),
          },
          on: { click: () => this.show(video.id) },
        }));
      }
      return item;
    }));
  }
}
