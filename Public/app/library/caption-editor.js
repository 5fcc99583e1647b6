// A library clip's captions (issue #41): a dialog over a preview of the clip that shows them,
// with the clip's tracks (one per language: its label, kind and number of cues, deleted from its
// row), a form that adds or replaces a track from a WebVTT or SRT file (the server converts SRT
// and refuses bad cue times with their reason), and a small cue editor: a track's cues in
// order, each text editable and saved on its own (PATCH …/cues/{index}).
//
// State for tests: dialog#caption-editor; video[data-role=caption-preview]; ul[data-role=caption-tracks]
// li[data-language]; input[data-field=caption-file|caption-language|caption-label],
// select[data-field=caption-kind]; ol[data-role=caption-cues] li[data-index] textarea + button[data-action=save-cue].

import { t, errorText } from '../core/i18n.js';
import { api } from '../core/api.js';
import { el, modalDialog, toast, iconButton } from '../core/ui.js';
import { clockText } from '../media/video-stage.js';
import { CaptionLayer } from '../media/captions.js';

const base = (video) => '/api/v1/videos/' + encodeURIComponent(video.id) + '/captions';

/** Opens the captions dialog of `video`; resolves with its tracks' languages when closed. */
export function editCaptions(video) {
  return new Promise((resolve) => {
    let tracks = [];
    const frame = el('div', { class: 'caption-preview-frame' });
    const preview = video.mp4Url
      ? el('video', { class: 'clip-preview', attrs: { src: video.mp4Url, controls: true, preload: 'metadata', playsinline: true, 'data-role': 'caption-preview', 'aria-label': t('library.clip-preview') } })
      : null;
    if (preview && video.posterUrl) preview.poster = video.posterUrl;
    if (preview) frame.append(preview);
    const layer = new CaptionLayer({ container: frame });
    const list = el('ul', { class: 'caption-tracks', attrs: { 'data-role': 'caption-tracks' } });
    const cues = el('div', { class: 'caption-cues-panel' });
    const error = el('p', { class: 'deck-error', attrs: { role: 'alert', 'data-role': 'caption-error' } });
    error.hidden = true;
    const fail = (failure) => {
      error.textContent = errorText(failure);
      error.hidden = false;
    };

    const fileInput = el('input', { class: 'input', attrs: { type: 'file', accept: '.vtt,.srt,text/vtt', 'data-field': 'caption-file', id: 'caption-file' } });
    const languageInput = el('input', { class: 'input', attrs: { type: 'text', 'data-field': 'caption-language', id: 'caption-language', value: document.documentElement.lang || 'en', maxlength: '35', autocomplete: 'off', spellcheck: 'false' } });
    const labelInput = el('input', { class: 'input', attrs: { type: 'text', 'data-field': 'caption-label', id: 'caption-label', maxlength: '80' } });
    const kindInput = el('select', { class: 'input', attrs: { 'data-field': 'caption-kind', id: 'caption-kind' } }, [
      el('option', { text: t('library.captions-kind-subtitles'), attrs: { value: 'subtitles' } }),
      el('option', { text: t('library.captions-kind-captions'), attrs: { value: 'captions' } }),
    ]);
    const field = (id, label, input) => el('div', { class: 'field' }, [el('label', { class: 'field-label', text: label, attrs: { for: id } }), input]);
    const upload = el('button', { class: 'btn btn-primary', text: t('library.captions-upload'), attrs: { type: 'submit', 'data-action': 'upload-captions' } });
    const form = el('form', { class: 'caption-form', attrs: { novalidate: true } }, [
      field('caption-file', t('library.captions-file'), fileInput),
      el('div', { class: 'caption-form-row' }, [
        field('caption-language', t('library.captions-language'), languageInput),
        field('caption-label', t('library.captions-label'), labelInput),
        field('caption-kind', t('library.captions-kind'), kindInput),
      ]),
      upload,
    ]);

    const showPreview = () => {
      if (preview) layer.attach(preview, null, tracks.filter((track) => track.url).map((track) => ({ language: track.language, name: track.label, url: track.url })));
    };

    const renderTracks = () => {
      list.replaceChildren(...tracks.map((track) => el('li', { class: 'caption-track', attrs: { 'data-language': track.language } }, [
        el('span', { class: 'caption-track-name', text: track.label, attrs: { lang: track.language } }),
        el('span', { class: 'deck-pages', text: track.language + ' · ' + t('library.captions-kind-' + track.kind) + ' · ' + t('library.captions-cues', { count: track.cueCount }) }),
        el('span', { class: 'caption-track-gap' }),
        iconButton('edit', t('library.captions-edit'), { cls: 'btn btn-small', on: { click: () => openCues(track.language) }, attrs: { 'data-action': 'edit-cues', 'aria-label': t('library.captions-edit-named', { label: track.label }) } }),
        iconButton('trash', t('library.delete'), { cls: 'btn btn-small', on: { click: () => remove(track) }, attrs: { 'data-action': 'delete-captions', 'aria-label': t('library.captions-delete-named', { label: track.label }) } }),
      ])));
      if (!tracks.length) list.append(el('li', { class: 'caption-none', text: t('library.captions-none') }));
    };

    const load = async () => {
      try {
        tracks = await api(base(video));
      } catch (failure) {
        fail(failure);
      }
      renderTracks();
      showPreview();
    };

    const openCues = async (language) => {
      let track;
      try {
        track = await api(base(video) + '/' + encodeURIComponent(language));
      } catch (failure) {
        fail(failure);
        return;
      }
      const rows = (track.cues || []).map((cue, index) => {
        const text = el('textarea', { class: 'input caption-cue-text', attrs: { rows: '2', id: 'caption-cue-' + index, 'aria-label': t('library.captions-cue-label', { n: index + 1 }) } });
        text.value = cue.text;
        const save = el('button', { class: 'btn btn-small', text: t('common.save'), attrs: { type: 'button', 'data-action': 'save-cue' } });
        save.addEventListener('click', async () => {
          save.disabled = true;
          try {
            const saved = await api(base(video) + '/' + encodeURIComponent(language) + '/cues/' + index, { method: 'PATCH', body: { text: text.value } });
            text.value = saved.cues[index].text;
            toast(t('library.captions-cue-saved'), { kind: 'success' });
            showPreview();
          } catch (failure) {
            fail(failure);
          } finally {
            save.disabled = false;
          }
        });
        return el('li', { class: 'caption-cue', attrs: { 'data-index': String(index) } }, [
          el('span', { class: 'caption-cue-time', text: clockText(cue.start) + ' – ' + clockText(cue.end) }), text, save,
        ]);
      });
      cues.replaceChildren(
        el('h3', { class: 'caption-cues-title', text: t('library.captions-cues-of', { label: track.label }) }),
        el('ol', { class: 'caption-cues', attrs: { 'data-role': 'caption-cues', 'data-language': language } }, rows),
      );
    };

    const remove = async (track) => {
      try {
        await api(base(video) + '/' + encodeURIComponent(track.language), { method: 'DELETE' });
        toast(t('library.captions-deleted', { label: track.label }), { kind: 'success' });
        if (cues.querySelector('[data-language="' + CSS.escape(track.language) + '"]')) cues.replaceChildren();
        await load();
      } catch (failure) {
        fail(failure);
      }
    };

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      error.hidden = true;
      const file = fileInput.files && fileInput.files[0];
      const language = languageInput.value.trim();
      if (!file || !language) {
        fail({ message: t('library.captions-need-file') });
        return;
      }
      upload.disabled = true;
      try {
        const query = '?kind=' + encodeURIComponent(kindInput.value) + (labelInput.value.trim() ? '&label=' + encodeURIComponent(labelInput.value.trim()) : '');
        const track = await api(base(video) + '/' + encodeURIComponent(language) + query, {
          method: 'PUT', body: file, headers: { 'Content-Type': 'application/octet-stream' },
        });
        toast(t('library.captions-saved', { label: track.label }), { kind: 'success' });
        fileInput.value = '';
        await load();
        await openCues(track.language);
      } catch (failure) {
        fail(failure);
      } finally {
        upload.disabled = false;
      }
    });

    const close = el('button', { class: 'btn', text: t('common.close'), attrs: { type: 'button', 'data-action': 'close-captions' } });
    const { dialog } = modalDialog({
      title: t('library.captions-title', { title: video.title }), id: 'caption-editor', cls: 'caption-editor',
      body: [preview ? frame : null, el('h3', { class: 'caption-cues-title', text: t('library.captions-tracks') }), list, form, error, cues],
      actions: [preview ? layer.picker : null, close].filter(Boolean),
    });
    close.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      if (preview) preview.pause();
      layer.detach();
      resolve(tracks.map((track) => track.language));
    });
    load();
  });
}
