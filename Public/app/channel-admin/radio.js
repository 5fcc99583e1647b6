// Admin: the radio stations (#radio) and one station's schedule (#radio/<id>).
//
// Stations: add, edit (name, description, website), reorder (drag, or Alt+Arrow keys), publish or
// unpublish, archive ("Delete") with an Archived filter to restore or delete for ever. A station:
// upload tracks (upload progress, then packaging progress from the job), edit title, artist and
// website, reorder the schedule (drag, or Alt+Arrow keys), delete a track.
//
// State for tests: [data-role=radio-admin-table] > tr[data-id]; [data-role=radio-add];
// [data-role=radio-filter]; [data-role=track-table] > tr[data-id][data-status];
// [data-role=track-upload] (a file input).

import { api } from '../core/api.js';
import { errorText, formatNumber, t } from '../core/i18n.js';
import { el, icon, confirmDialog } from '../core/ui.js';
import { archiveActions } from './archive.js';
import { sortableRows } from './video-admin-common.js';

let ctx = null;
let root = null;
let pollTimer = null;

export function mount(section, context) {
  ctx = context;
  root = section;
  if (!document.querySelector('link[href="/app/channel-admin/radio.css"]')) {
    document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/channel-admin/radio.css' } }));
  }
}

export function show(route) {
  clearTimeout(pollTimer);
  if (route && route[0]) return showStation(route[0]);
  return showStations(route && route[0] === undefined ? 'all' : 'all');
}

function toast(message) {
  if (ctx && ctx.toast) ctx.toast(message);
}

function failed(error) {
  toast(error && (error.code || error.message) ? errorText(error) : t('channeladmin.radio.failed'));
}

/** A row that moves with drag and drop, or Alt+Arrow keys on its handle; `moved(ids)` saves. */
function makeSortable(tbody, moved) {
  sortableRows(tbody, moved, { handle: '[data-role=move]' });
}

function moveHandle(label) {
  return el('button', {
    class: 'btn btn-icon radio-move',
    attrs: { type: 'button', 'data-role': 'move', 'aria-label': t('channeladmin.move-alt-arrows', { name: label }), title: t('channeladmin.drag-title') },
  }, [icon('move')]);
}

// MARK: Stations

async function showStations(filter = 'all') {
  const add = el('button', { class: 'btn btn-primary', attrs: { type: 'button', 'data-role': 'radio-add' }, on: { click: () => editStation(null) } }, [icon('plus'), el('span', { text: t('channeladmin.radio.add') })]);
  const select = el('select', { class: 'input', attrs: { 'data-role': 'radio-filter', 'aria-label': t('channeladmin.show') }, on: { change: () => showStations(select.value) } }, [
    el('option', { text: t('channeladmin.all'), attrs: { value: 'all', selected: filter === 'all' } }),
    el('option', { text: t('channeladmin.archived'), attrs: { value: 'archived', selected: filter === 'archived' } }),
  ]);
  const tbody = el('tbody');
  const table = el('table', { class: 'admin-table', attrs: { 'data-role': 'radio-admin-table' } }, [
    el('thead', {}, [el('tr', {}, ['', t('channeladmin.name'), t('channeladmin.radio.now-playing'), t('channeladmin.radio.tracks'), t('channeladmin.status'), ''].map((label) => el('th', { text: label })))]),
    tbody,
  ]);
  root.replaceChildren(
    el('div', { class: 'admin-head' }, [el('h1', { text: t('channeladmin.radio') }), select, filter === 'all' ? add : null]),
    el('div', { class: 'admin-table-wrap' }, [table]),
  );
  let radios;
  try {
    radios = await api(`/api/v1/channel/radios?status=${filter}&limit=100`);
  } catch (error) {
    return failed(error);
  }
  if (!radios.length) {
    tbody.append(el('tr', {}, [el('td', { attrs: { colspan: 6 }, class: 'admin-empty', text: filter === 'archived' ? t('channeladmin.radio.nothing-archived') : t('channeladmin.radio.none') })]));
  }
  for (const radio of radios) {
    const published = radio.publishedAt !== null;
    const archive = archiveActions(`/api/v1/channel/radios/${radio.id}`, {
      ctx, done: () => showStations(filter), archived: t('channeladmin.radio.archived-toast'), restored: null, deleted: null,
      confirm: t('channeladmin.radio.delete-forever-message', { name: radio.name }),
    });
    const actions = filter === 'archived'
      ? [
          el('button', { class: 'btn', attrs: { type: 'button' }, text: t('channeladmin.restore'), on: { click: archive.restore } }),
          el('button', { class: 'btn btn-danger', attrs: { type: 'button' }, text: t('channeladmin.delete-forever'), on: { click: archive.forever } }),
        ]
      : [
          el('a', { class: 'btn', attrs: { href: `#radio/${radio.id}` }, text: t('channeladmin.radio.tracks') }),
          el('button', { class: 'btn', attrs: { type: 'button' }, text: t('channeladmin.edit'), on: { click: () => editStation(radio) } }),
          el('button', { class: 'btn', attrs: { type: 'button', 'data-role': 'publish' }, text: published ? t('channeladmin.unpublish') : t('channeladmin.publish'), on: { click: () => act(api(`/api/v1/channel/radios/${radio.id}`, { method: 'PATCH', body: { published: !published } }), filter) } }),
          el('button', { class: 'btn btn-danger', attrs: { type: 'button' }, text: t('channeladmin.delete'), on: { click: archive.archive } }),
        ];
    tbody.append(el('tr', { attrs: { 'data-id': radio.id, draggable: filter === 'all' ? 'true' : null } }, [
      el('td', {}, [filter === 'all' ? moveHandle(radio.name) : null]),
      el('td', {}, [el('strong', { text: radio.name }), el('div', { class: 'admin-sub', text: radio.description })]),
      el('td', { text: radio.nowPlaying ? (radio.nowPlaying.artist ? t('channel.radio.track-by', { title: radio.nowPlaying.title, artist: radio.nowPlaying.artist }) : radio.nowPlaying.title) : '—' }),
      el('td', { text: formatNumber(radio.trackCount) }),
      el('td', {}, [el('span', { class: `admin-badge ${published ? 'is-on' : ''}`, text: published ? t('channeladmin.published') : t('channeladmin.draft') })]),
      el('td', { class: 'admin-actions' }, actions),
    ]));
  }
  if (filter === 'all') {
    makeSortable(tbody, (ids) => api('/api/v1/channel/radios/order', { method: 'POST', body: { ids } }).then(() => toast(t('channeladmin.order-saved')), failed));
  }
}

async function act(promise, filter) {
  try {
    await promise;
  } catch (error) {
    failed(error);
  }
  showStations(filter);
}

function field(label, input) {
  return el('label', { class: 'admin-field' }, [el('span', { text: label }), input]);
}

/** The add/edit form of a station, in a dialog. */
function editStation(radio) {
  const name = el('input', { attrs: { type: 'text', required: true, maxlength: 200, value: radio?.name || '', 'data-role': 'radio-name' } });
  const description = el('textarea', { attrs: { rows: 3, 'data-role': 'radio-description' } });
  description.value = radio?.description || '';
  const website = el('input', { attrs: { type: 'url', value: radio?.website || '', placeholder: 'https://', 'data-role': 'radio-website' } });
  const error = el('p', { class: 'admin-error', attrs: { role: 'alert' } });
  const dialog = el('dialog', { class: 'admin-dialog' });
  const form = el('form', { attrs: { method: 'dialog' } }, [
    el('h2', { text: radio ? t('channeladmin.radio.edit') : t('channeladmin.radio.add') }),
    field(t('channeladmin.name'), name), field(t('channeladmin.description'), description), field(t('channeladmin.website'), website), error,
    el('div', { class: 'admin-dialog-actions' }, [
      el('button', { class: 'btn', attrs: { type: 'button' }, text: t('channeladmin.cancel'), on: { click: () => dialog.close() } }),
      el('button', { class: 'btn btn-primary', attrs: { type: 'submit', 'data-role': 'radio-save' }, text: t('channeladmin.save') }),
    ]),
  ]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { name: name.value, description: description.value, website: website.value || null };
    try {
      if (radio) await api(`/api/v1/channel/radios/${radio.id}`, { method: 'PATCH', body });
      else await api('/api/v1/channel/radios', { method: 'POST', body });
      dialog.close();
      showStations('all');
    } catch (e) {
      error.textContent = errorText(e);
    }
  });
  dialog.append(form);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  name.focus();
}

// MARK: One station's tracks

async function showStation(id) {
  let radio;
  try {
    radio = await api(`/api/v1/channel/radios/${id}?status=all`);
  } catch (error) {
    return failed(error);
  }
  const input = el('input', { attrs: { type: 'file', accept: 'audio/*,.mp3,.m4a,.wav,.ogg,.flac', multiple: true, 'data-role': 'track-upload', id: 'track-upload' }, class: 'visually-hidden' });
  const uploads = el('ul', { class: 'radio-uploads', attrs: { 'aria-live': 'polite' } });
  input.addEventListener('change', () => {
    for (const file of input.files) upload(id, file, uploads);
    input.value = '';
  });
  const tbody = el('tbody');
  root.replaceChildren(
    el('a', { class: 'btn admin-back', attrs: { href: '#radio' } }, [el('span', { class: 'flip-inline' }, [icon('chevron-left')]), el('span', { text: t('channeladmin.radio.stations') })]),
    el('div', { class: 'admin-head' }, [
      el('h1', { text: radio.name }),
      el('label', { class: 'btn btn-primary', attrs: { for: 'track-upload' } }, [icon('upload'), el('span', { text: t('channeladmin.radio.upload') })]),
      input,
    ]),
    el('p', { class: 'admin-hint', text: t('channeladmin.radio.tracks-hint') }),
    uploads,
    el('div', { class: 'admin-table-wrap' }, [
      el('table', { class: 'admin-table', attrs: { 'data-role': 'track-table' } }, [
        el('thead', {}, [el('tr', {}, ['', t('channeladmin.title'), t('channeladmin.radio.artist'), t('channeladmin.website'), t('channeladmin.radio.length'), t('channeladmin.status'), ''].map((label) => el('th', { text: label })))]),
        tbody,
      ]),
    ]),
  );
  makeSortable(tbody, (ids) => api(`/api/v1/channel/radios/${id}/tracks/order`, { method: 'PUT', body: { ids } }).then(() => toast(t('channeladmin.radio.schedule-saved')), failed));
  await renderTracks(id, tbody);
}

function lengthText(seconds) {
  const s = Math.round(seconds || 0);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function statusText(track) {
  if (track.status === 'failed') return track.error ? errorText(track.error) : t('channeladmin.radio.track-failed');
  if (track.status === 'ready') return t('channeladmin.radio.track-ready');
  if (track.progress && track.progress.total) {
    return t('channeladmin.radio.preparing-percent', { percent: Math.round((track.progress.done / track.progress.total) * 100) });
  }
  return track.status === 'queued' ? t('channeladmin.radio.waiting') : t('channeladmin.radio.preparing');
}

async function renderTracks(id, tbody) {
  clearTimeout(pollTimer);
  let tracks;
  try {
    tracks = await api(`/api/v1/channel/radios/${id}/tracks`);
  } catch (error) {
    return failed(error);
  }
  if (!tbody.isConnected) return;
  // Editing in place: keep the row being typed in.
  if (tbody.contains(document.activeElement) && document.activeElement.tagName === 'INPUT') {
    pollTimer = setTimeout(() => renderTracks(id, tbody), 1500);
    return;
  }
  tbody.replaceChildren();
  if (!tracks.length) {
    tbody.append(el('tr', {}, [el('td', { attrs: { colspan: 7 }, class: 'admin-empty', text: t('channeladmin.radio.no-tracks') })]));
  }
  for (const track of tracks) {
    const save = (key) => async (event) => {
      if (event.target.value === (track[key] || '')) return;
      try {
        await api(`/api/v1/channel/radios/${id}/tracks/${track.id}`, { method: 'PATCH', body: { [key]: event.target.value || (key === 'website' ? null : '') } });
        track[key] = event.target.value;
        toast(t('channeladmin.saved'));
      } catch (error) {
        failed(error);
        event.target.value = track[key] || '';
      }
    };
    const text = (key, label, type = 'text') => el('input', { class: 'admin-inline', attrs: { type, value: track[key] || '', 'aria-label': t('channeladmin.radio.field-of', { field: label, title: track.title }), 'data-field': key }, on: { change: save(key) } });
    tbody.append(el('tr', { attrs: { 'data-id': track.id, 'data-status': track.status, draggable: 'true' } }, [
      el('td', {}, [moveHandle(track.title)]),
      el('td', {}, [text('title', t('channeladmin.title'))]),
      el('td', {}, [text('artist', t('channeladmin.radio.artist'))]),
      el('td', {}, [text('website', t('channeladmin.website'), 'url')]),
      el('td', { text: track.status === 'ready' ? lengthText(track.duration) : '—' }),
      el('td', { class: track.status === 'failed' ? 'admin-error' : '', text: statusText(track) }),
      el('td', {}, [el('button', { class: 'btn btn-icon', attrs: { type: 'button', 'aria-label': t('channeladmin.delete-named', { name: track.title }) }, on: { click: () => deleteTrack(id, track, tbody) } }, [icon('trash')])]),
    ]));
  }
  if (tracks.some((t) => t.status === 'queued' || t.status === 'processing')) {
    pollTimer = setTimeout(() => renderTracks(id, tbody), 1000);
  }
}

async function deleteTrack(id, track, tbody) {
  const ok = await confirmDialog({ title: t('channeladmin.radio.delete-track-title'), message: t('channeladmin.radio.delete-track-message', { title: track.title }), confirmLabel: t('channeladmin.delete'), danger: true });
  if (!ok) return;
  try {
    await api(`/api/v1/channel/radios/${id}/tracks/${track.id}`, { method: 'DELETE' });
  } catch (error) {
    failed(error);
  }
  renderTracks(id, tbody);
}

/** Uploads one file with its progress; the server refuses what is not audio, with its reason. */
function upload(id, file, list) {
  const bar = el('progress', { attrs: { max: 100, value: 0 } });
  const label = el('span', { text: file.name });
  const item = el('li', { class: 'radio-upload' }, [label, bar]);
  list.append(item);
  const request = new XMLHttpRequest();
  const title = file.name.replace(/\.[^.]+$/, '');
  request.open('POST', `/api/v1/channel/radios/${id}/tracks?title=${encodeURIComponent(title)}`);
  request.setRequestHeader('X-Podium-Request', '1');
  request.setRequestHeader('Accept', 'application/json');
  request.upload.addEventListener('progress', (event) => {
    if (event.lengthComputable) bar.value = Math.round((event.loaded / event.total) * 100);
  });
  request.addEventListener('load', () => {
    if (request.status >= 200 && request.status < 300) {
      item.remove();
      const tbody = root.querySelector('[data-role=track-table] tbody');
      if (tbody) renderTracks(id, tbody);
      return;
    }
    let message = t('channeladmin.radio.upload-failed', { status: request.status });
    try {
      message = errorText(JSON.parse(request.responseText).error) || message;
    } catch (_) {
      // keep the status
    }
    item.classList.add('is-failed');
    item.replaceChildren(el('span', { text: t('channeladmin.file-message', { file: file.name, message }) }), el('button', { class: 'btn btn-icon', attrs: { type: 'button', 'aria-label': t('channeladmin.dismiss') }, on: { click: () => item.remove() } }, [icon('x')]));
  });
  request.addEventListener('error', () => {
    item.classList.add('is-failed');
    item.textContent = t('channeladmin.file-message', { file: file.name, message: t('channeladmin.unreachable') });
  });
  const form = new FormData();
  form.append('file', file);
  request.send(form);
}
