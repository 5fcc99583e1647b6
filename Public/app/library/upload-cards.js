// The library's cards for an upload in progress and for a progress bar: one look for decks and
// videos (library.js, videos.js).

import { t } from '../core/i18n.js';
import { el, icon, iconButton } from '../core/ui.js';
import { statusText, fractionOf } from '../media/uploader.js';

/** A labelled progress bar (0..1); `processing` marks the server's part, after the upload. */
export function progressBar(fraction, label, processing = false) {
  const bar = el('div', { class: 'progress-bar' });
  bar.style.width = Math.round(Math.max(0, Math.min(1, fraction)) * 100) + '%';
  return el('div', { class: 'progress' + (processing ? ' is-processing' : ''), attrs: { 'data-role': processing ? 'processing' : 'uploading' } }, [
    el('div', { class: 'progress-label' }, [el('span', { text: label })]),
    el('div', {
      class: 'progress-track',
      attrs: { role: 'progressbar', 'aria-label': label, 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(Math.round(fraction * 100)) },
    }, [bar]),
  ]);
}

/** The card of an upload queue's item (uploader.js): its step and progress, or why it failed with Dismiss. */
export function uploadCard(upload, { onDismiss, cls = '' }) {
  const failed = upload.state === 'failed';
  const status = statusText(upload);
  const body = el('div', { class: 'deck-body' }, [
    el('div', { class: 'deck-title', text: upload.data.title, attrs: { title: upload.name } }),
  ]);
  const pill = { checking: t('upload.state-checking'), waiting: t('upload.state-waiting'), uploading: t('upload.state-uploading'), processing: t('upload.processing'), ready: t('upload.ready'), failed: t('upload.state-failed') }[upload.state];
  body.append(el('div', { class: 'deck-meta' }, [el('span', { class: 'status-pill status-' + (failed ? 'failed' : upload.state === 'processing' ? 'processing' : 'uploading'), text: pill })]));
  if (failed) {
    body.append(el('p', { class: 'deck-error', attrs: { 'data-role': 'error', role: 'alert' } }, [icon('alert', 16), el('span', { text: status })]));
  } else {
    body.append(progressBar(fractionOf(upload), status, upload.state === 'processing'));
  }
  const actions = el('div', { class: 'deck-actions' });
  if (failed) {
    actions.append(iconButton('x', t('common.dismiss'), { cls: 'btn', on: { click: () => onDismiss(upload) }, attrs: { 'data-action': 'dismiss' } }));
  }
  return el('li', {
    class: 'deck-card' + (cls ? ' ' + cls : '') + (failed ? ' is-failed' : ''),
    attrs: {
      'data-upload': upload.key, 'data-status': failed ? 'failed' : 'uploading', 'data-upload-state': upload.state, 'data-title': upload.data.title,
      // A remembered upload that continued: where it resumed (percent); a lost connection: the seconds to the next try.
      'data-resumed-at': upload.resumedAt === null || upload.resumedAt === undefined ? null : String(Math.round(upload.resumedAt * 100)),
      'data-retry-in': upload.retryIn ? String(upload.retryIn) : null,
    },
  }, [el('div', { class: 'deck-thumb' + (failed ? ' is-failed' : ''), attrs: { 'aria-hidden': 'true' } }, [icon(failed ? 'alert' : 'upload', 36)]), body, actions]);
}
