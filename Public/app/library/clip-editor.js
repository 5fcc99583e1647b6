// How a library clip plays on a stage (issue #41): its trim (start and end, seconds into it;
// metadata, the files stay whole) and whether it loops, set in a dialog over a preview of the
// clip that keeps to them (it starts at the trim's start, and at its end stops or, looping,
// starts again). "Set from player" takes the preview's current time, as editors do.
// Saved with PUT /api/v1/videos/{id}/clip; a clip on a stage takes it when shown again.
//
// State for tests: dialog#clip-editor; its video[data-role=clip-preview], inputs
// [data-field=trim-start|trim-end] (seconds), [data-field=loop] (a switch), buttons
// [data-action=set-start|set-end|clear-trim], and the card's [data-role=clip-badge].

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, modalDialog, toast } from '../core/ui.js';
import { clockText } from '../media/video-stage.js';

/** "0:05–0:20 · loops": what a card says of a clip's trim and loop (null when it has neither). */
export function clipSummary(video) {
  const trimmed = typeof video.trimStart === 'number' || typeof video.trimEnd === 'number';
  if (!trimmed && !video.loop) return null;
  const parts = [];
  if (trimmed) parts.push(clockText(video.trimStart || 0) + '–' + clockText(typeof video.trimEnd === 'number' ? video.trimEnd : video.duration));
  if (video.loop) parts.push(t('library.clip-loops'));
  return parts.join(' · ');
}

/** Seconds from a field ("" is none); NaN when it is not a number. */
function seconds(input) {
  const text = input.value.trim().replace(',', '.');
  return text === '' ? null : Number(text);
}

/** Keeps a preview inside [start, end]: a play starts at start; at end it stops or, looping, starts again. */
export function keepInside(video, range) {
  const inside = () => {
    const { start, end, loop } = range();
    const lower = start ?? 0;
    const upper = end ?? video.duration;
    if (video.currentTime < lower - 0.05) video.currentTime = lower;
    else if (video.currentTime >= upper) {
      if (loop && !video.paused) video.currentTime = lower;
      else if (!video.paused) {
        video.pause();
        video.currentTime = upper;
      }
    }
  };
  video.addEventListener('timeupdate', inside);
  video.addEventListener('play', () => {
    const { start, end } = range();
    const upper = end ?? video.duration;
    if (video.currentTime >= upper - 0.05 || video.currentTime < (start ?? 0)) video.currentTime = start ?? 0;
  });
  // A loop whose end is the clip's own: the element ends rather than passing it.
  video.addEventListener('ended', () => {
    if (range().loop) {
      video.currentTime = range().start ?? 0;
      video.play().catch(() => {});
    }
  });
}

/** Opens the editor for `video`; resolves with the video as saved, or null when cancelled. */
export function editClip(video) {
  return new Promise((resolve) => {
    const duration = video.duration || 0;
    const field = (name, value, label) => el('input', {
      class: 'input clip-time',
      attrs: {
        type: 'number', min: '0', max: String(duration), step: '0.1', inputmode: 'decimal', 'data-field': name,
        value: typeof value === 'number' ? String(value) : '', placeholder: label, 'aria-label': label,
      },
    });
    const startInput = field('trim-start', video.trimStart, t('library.clip-start'));
    const endInput = field('trim-end', video.trimEnd, t('library.clip-end'));
    const loopInput = el('input', { attrs: { type: 'checkbox', role: 'switch', 'data-field': 'loop' } });
    loopInput.checked = !!video.loop;
    const error = el('p', { class: 'deck-error', attrs: { 'data-role': 'clip-error', role: 'alert' } });
    error.hidden = true;

    const preview = video.mp4Url
      ? el('video', { class: 'clip-preview', attrs: { src: video.mp4Url, controls: true, preload: 'metadata', playsinline: true, 'data-role': 'clip-preview', 'aria-label': t('library.clip-preview') } })
      : null;
    if (preview && video.posterUrl) preview.poster = video.posterUrl;
    const range = () => {
      const start = seconds(startInput);
      const end = seconds(endInput);
      return { start: Number.isFinite(start) ? start : null, end: Number.isFinite(end) ? end : null, loop: loopInput.checked };
    };
    if (preview) keepInside(preview, range);

    const fromPlayer = (input, action, label) => el('button', {
      class: 'btn btn-small', text: label,
      attrs: { type: 'button', 'data-action': action, disabled: preview ? null : '' },
      on: { click: () => { input.value = String(Math.round(preview.currentTime * 10) / 10); } },
    });
    const row = (label, input, button) => el('div', { class: 'field clip-field' }, [
      el('label', { class: 'field-label', text: label }), el('div', { class: 'clip-row' }, [input, button]),
    ]);
    // Labels point at their inputs.
    for (const [input, id] of [[startInput, 'clip-start'], [endInput, 'clip-end'], [loopInput, 'clip-loop']]) input.id = id;
    const startRow = row(t('library.clip-start'), startInput, fromPlayer(startInput, 'set-start', t('library.clip-set-start')));
    const endRow = row(t('library.clip-end'), endInput, fromPlayer(endInput, 'set-end', t('library.clip-set-end')));
    startRow.querySelector('label').htmlFor = 'clip-start';
    endRow.querySelector('label').htmlFor = 'clip-end';
    const loopRow = el('label', { class: 'clip-loop', attrs: { for: 'clip-loop' } }, [loopInput, el('span', { text: t('library.clip-loop') })]);
    const hint = el('p', { class: 'dialog-text clip-hint', text: t('library.clip-hint', { length: clockText(duration) }) });

    const cancel = el('button', { class: 'btn', text: t('common.cancel'), attrs: { type: 'button' } });
    const clear = el('button', { class: 'btn', text: t('library.clip-clear'), attrs: { type: 'button', 'data-action': 'clear-trim' } });
    const save = el('button', { class: 'btn btn-primary', text: t('common.save'), attrs: { type: 'submit', 'data-action': 'save-clip' } });
    const { dialog, content } = modalDialog({
      title: t('library.clip-title', { title: video.title }), id: 'clip-editor', cls: 'clip-editor', form: true,
      body: [preview, hint, startRow, endRow, loopRow, error], actions: [clear, cancel, save],
    });
    let result = null;
    cancel.addEventListener('click', () => dialog.close());
    clear.addEventListener('click', () => {
      startInput.value = '';
      endInput.value = '';
    });
    content.addEventListener('submit', async (event) => {
      event.preventDefault();
      const start = seconds(startInput);
      const end = seconds(endInput);
      if (Number.isNaN(start) || Number.isNaN(end)) {
        error.textContent = t('errors.invalid_trim');
        error.hidden = false;
        return;
      }
      save.disabled = true;
      try {
        result = await api('/api/v1/videos/' + encodeURIComponent(video.id) + '/clip', {
          method: 'PUT', body: { trimStart: start, trimEnd: end, loop: loopInput.checked },
        });
        dialog.close();
        toast(t('library.clip-saved', { title: video.title }), { kind: 'success' });
      } catch (failure) {
        error.textContent = errorText(failure);
        error.hidden = false;
      } finally {
        save.disabled = false;
      }
    });
    dialog.addEventListener('close', () => {
      if (preview) preview.pause();
      resolve(result);
    });
  });
}
