// The channel's videos (issue #20, seed 004 1.2.1): categories with sub-categories, a searchable
// grid (a list on a phone) of cards, "Continue watching" and "Favourites" rows, and the player
// page with a quality menu, chapters, sharing and resume. Mounted by channel.js:
//
//   mount(section, ctx)   once; ctx = { me, api, showLimit(errorBody, container), navigate(hash), share({title,text,url}) }
//   show(route)           on #videos (route []) and #videos/<id> (route [id])
//
// The server decides who may play what (GET /videos/{id}/stream answers a URL or the membership
// error); this page only shows "Members" on cards the API marks membersOnly for a non-member.
//
// Hooks for tests: [data-role=videos-search], [data-role=category-chip][data-id],
// [data-role=video-card][data-id], [data-role=favourite][aria-pressed], [data-role=continue-row],
// [data-role=favourites-row], [data-role=video-detail][data-id], [data-role=video-player],
// [data-role=quality], [data-role=chapter], [data-role=share], [data-role=video-progress].

import { api } from '../core/api.js';
import { errorText, formatDate, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { loadPlayerLibrary, clockText } from '../media/video-stage.js';
import { keepStreamFresh } from '../media/stream-renewal.js';
import { CaptionLayer } from '../media/captions.js';

const BASE = '/api/v1/channel';
const SAVE_EVERY = 10_000; // ms between saved positions while playing
const PAGE = 48;

let ctx = null;
let root = null;
let catalogue = null;
let detail = null;
let state = {
  categories: [],
  categoryId: null,
  subcategoryId: null,
  search: '',
  favourites: new Set(),
};
let player = null; // { id, videojs player, timer, lastSaved }
let searchTimer = null;

function ensureStyles() {
  if (document.querySelector('link[href="/app/channel/videos.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/channel/videos.css' } }));
}

/** The channel API (api.js): JSON in and out; rejects with ApiError (`detail`: the error body). */
function call(path, options) {
  return api(BASE + path, options);
}

function messageOf(error) {
  return errorText(error);
}

export function mount(section, context) {
  ctx = context;
  root = section;
  ensureStyles();
  root.classList.add('cv');
  catalogue = el('div', { class: 'cv-catalogue' });
  detail = el('div', { class: 'cv-detail', attrs: { hidden: true } });
  root.replaceChildren(catalogue, detail);
  buildCatalogue();
  addEventListener('pagehide', () => savePosition(true));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') savePosition(true);
  });
}

export function show(route) {
  const id = route && route[0];
  if (id) {
    openDetail(id);
  } else {
    closePlayer();
    detail.hidden = true;
    catalogue.hidden = false;
    refreshCatalogue();
  }
}

// MARK: - Catalogue

let chipRow;
let subRow;
let continueSection;
let favouritesSection;
let grid;
let gridTitle;
let moreButton;
let offset = 0;

function buildCatalogue() {
  const input = el('input', {
    class: 'input cv-search-input',
    attrs: { type: 'search', placeholder: t('channel.videos.search'), 'aria-label': t('channel.videos.search'), 'data-role': 'videos-search', maxlength: 200 },
  });
  input.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      state.search = input.value.trim();
      loadGrid(true);
    }, 250);
  });
  const search = el('label', { class: 'cv-search' }, [icon('search', 18), input]);
  chipRow = el('div', { class: 'cv-chips', attrs: { role: 'tablist', 'aria-label': t('channel.videos.categories') } });
  subRow = el('div', { class: 'cv-chips cv-subchips', attrs: { role: 'tablist', 'aria-label': t('channel.videos.subcategories'), hidden: true } });
  continueSection = row(t('channel.videos.continue'), 'continue-row');
  favouritesSection = row(t('channel.videos.favourites'), 'favourites-row');
  gridTitle = el('h2', { class: 'cv-row-title', text: t('channel.videos.all') });
  grid = el('div', { class: 'cv-grid', attrs: { 'aria-live': 'polite' } });
  moreButton = el('button', { class: 'btn cv-more', text: t('channel.videos.more'), attrs: { type: 'button', hidden: true } });
  moreButton.addEventListener('click', () => loadGrid(false));
  catalogue.replaceChildren(
    el('div', { class: 'cv-top' }, [search, chipRow, subRow]),
    continueSection.node, favouritesSection.node,
    el('section', { class: 'cv-all' }, [gridTitle, grid, moreButton]),
  );
}

function row(title, role) {
  const list = el('div', { class: 'cv-row-list' });
  const node = el('section', { class: 'cv-row', attrs: { 'data-role': role, hidden: true, 'aria-label': title } }, [
    el('h2', { class: 'cv-row-title', text: title }), list,
  ]);
  return { node, list };
}

async function refreshCatalogue() {
  await Promise.all([loadCategories(), loadPersonal()]);
  await loadGrid(true);
}

async function loadCategories() {
  try {
    state.categories = await call('/videos/categories');
  } catch (error) {
    state.categories = [];
  }
  renderChips();
}

function renderChips() {
  const top = state.categories.filter((c) => !c.parentId);
  const chip = (label, id, current, onPick) => el('button', {
    class: 'cv-chip', text: label,
    attrs: { type: 'button', role: 'tab', 'aria-selected': String(current), 'data-role': 'category-chip', 'data-id': id || '' },
    on: { click: onPick },
  });
  chipRow.replaceChildren(
    chip(t('channel.videos.chip-all'), null, !state.categoryId, () => pickCategory(null)),
    ...top.map((c) => chip(c.name, c.id, state.categoryId === c.id, () => pickCategory(c.id))),
  );
  const subs = state.categories.filter((c) => c.parentId && c.parentId === state.categoryId);
  subRow.hidden = subs.length === 0;
  subRow.replaceChildren(
    ...(subs.length ? [chip(t('channel.videos.chip-all-of-it'), state.categoryId, !state.subcategoryId, () => pickSub(null))] : []),
    ...subs.map((c) => chip(c.name, c.id, state.subcategoryId === c.id, () => pickSub(c.id))),
  );
}

function pickCategory(id) {
  state.categoryId = id;
  state.subcategoryId = null;
  renderChips();
  loadGrid(true);
}

function pickSub(id) {
  state.subcategoryId = id;
  renderChips();
  loadGrid(true);
}

async function loadPersonal() {
  let favourites = [];
  let progress = [];
  try {
    [favourites, progress] = await Promise.all([call('/me/favourites'), call('/me/continue?limit=12')]);
  } catch (_) {
    // Personal rows are a bonus: the catalogue still shows.
  }
  state.favourites = new Set(favourites.map((v) => v.id));
  continueSection.node.hidden = progress.length === 0;
  continueSection.list.replaceChildren(...progress.map((p) => card(p.video, { seconds: p.seconds, duration: p.duration })));
  favouritesSection.node.hidden = favourites.length === 0;
  favouritesSection.list.replaceChildren(...favourites.map((v) => card(v)));
}

async function loadGrid(reset) {
  if (reset) offset = 0;
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  const category = state.subcategoryId || state.categoryId;
  if (category) params.set('categoryId', category);
  if (state.search) params.set('search', state.search);
  const asked = params.toString();
  let videos;
  try {
    videos = await call('/videos?' + asked);
  } catch (error) {
    grid.replaceChildren(el('p', { class: 'cv-empty', text: messageOf(error) }));
    return;
  }
  if (grid.dataset.asked && reset === false && grid.dataset.asked === asked) return;
  grid.dataset.asked = asked;
  const name = category && (state.categories.find((c) => c.id === category) || {}).name;
  gridTitle.textContent = state.search ? t('channel.videos.results', { search: state.search }) : name || t('channel.videos.all');
  const cards = videos.map((v) => card(v));
  if (reset) grid.replaceChildren(...cards);
  else grid.append(...cards);
  if (reset && videos.length === 0) {
    grid.replaceChildren(el('p', { class: 'cv-empty', text: state.search ? t('channel.videos.no-match') : t('channel.videos.none') }));
  }
  offset += videos.length;
  moreButton.hidden = videos.length < PAGE;
}

/** One video's card: poster, duration, badges, favourite star, title (and progress, in "Continue"). */
function card(video, progress = null) {
  const poster = video.posterUrl
    ? el('img', { class: 'cv-poster', attrs: { src: video.posterUrl, alt: '', loading: 'lazy' } })
    : el('div', { class: 'cv-poster cv-poster-empty' }, [icon('film', 32)]);
  const badges = el('div', { class: 'cv-badges' }, [
    video.new ? el('span', { class: 'cv-badge cv-badge-new', text: t('channel.badge-new') }) : null,
    video.membersOnly && !ctx.me.member ? el('span', { class: 'cv-badge cv-badge-members' }, [icon('lock', 12), t('channel.members-only')]) : null,
  ]);
  const thumb = el('div', { class: 'cv-thumb' }, [
    poster, badges, el('span', { class: 'cv-duration', text: clockText(video.duration) }),
    progress ? el('div', { class: 'cv-progress', attrs: { 'data-role': 'video-progress' } }, [
      el('span', { attrs: { style: null }, class: 'cv-progress-bar' }),
    ]) : null,
  ]);
  if (progress) {
    const ratio = progress.duration > 0 ? Math.min(1, progress.seconds / progress.duration) : 0;
    thumb.querySelector('.cv-progress-bar').style.width = (ratio * 100).toFixed(1) + '%';
  }
  const link = el('a', { class: 'cv-card-link', attrs: { href: '#videos/' + encodeURIComponent(video.id) } }, [
    thumb,
    el('div', { class: 'cv-card-text' }, [
      el('h3', { class: 'cv-card-title', text: video.title }),
      el('p', { class: 'cv-card-meta', text: metaText(video, progress) }),
    ]),
  ]);
  return el('article', { class: 'cv-card', attrs: { 'data-role': 'video-card', 'data-id': video.id } }, [
    link, favouriteButton(video),
  ]);
}

function metaText(video, progress) {
  if (progress) return t('channel.videos.left', { time: clockText(Math.max(0, progress.duration - progress.seconds)) });
  const date = video.publishedAt ? formatDate(video.publishedAt, { dateStyle: 'medium' }) : '';
  return [date, video.description ? video.description.split('\n')[0] : ''].filter(Boolean).join(' · ');
}

function favouriteButton(video) {
  const button = el('button', {
    class: 'cv-star', attrs: { type: 'button', 'data-role': 'favourite', 'data-id': video.id },
  }, [icon('star', 20)]);
  const paint = () => {
    const on = state.favourites.has(video.id);
    button.setAttribute('aria-pressed', String(on));
    button.setAttribute('aria-label', on ? t('channel.videos.unfavourite') : t('channel.videos.favourite'));
    button.title = button.getAttribute('aria-label');
  };
  paint();
  button.addEventListener('click', async (event) => {
    event.preventDefault();
    const on = !state.favourites.has(video.id);
    try {
      await call('/me/favourites/' + encodeURIComponent(video.id), { method: on ? 'PUT' : 'DELETE' });
    } catch (error) {
      alertMessage(messageOf(error));
      return;
    }
    if (on) state.favourites.add(video.id);
    else state.favourites.delete(video.id);
    for (const other of root.querySelectorAll(`[data-role=favourite][data-id="${CSS.escape(video.id)}"]`)) {
      other.setAttribute('aria-pressed', String(on));
      other.setAttribute('aria-label', on ? t('channel.videos.unfavourite') : t('channel.videos.favourite'));
      other.title = other.getAttribute('aria-label');
    }
    if (!catalogue.hidden) loadPersonal();
  });
  return button;
}

function alertMessage(text) {
  const note = el('p', { class: 'cv-alert', text, attrs: { role: 'alert' } });
  root.prepend(note);
  setTimeout(() => note.remove(), 5000);
}

// MARK: - Detail and player

async function openDetail(id) {
  if (player && player.id === id) return;
  closePlayer();
  catalogue.hidden = true;
  detail.hidden = false;
  detail.dataset.id = id;
  detail.setAttribute('data-role', 'video-detail');
  detail.replaceChildren(el('p', { class: 'cv-loading', text: t('channel.loading') }));
  let video;
  try {
    [video] = await Promise.all([call('/videos/' + encodeURIComponent(id)), loadFavourites()]);
  } catch (error) {
    if (detail.dataset.id !== id) return;
    detail.replaceChildren(backButton(), el('p', { class: 'cv-empty', text: error.status === 404 ? t('channel.videos.gone') : messageOf(error) }));
    return;
  }
  if (detail.dataset.id !== id) return;
  renderDetail(video);
}

async function loadFavourites() {
  try {
    state.favourites = new Set((await call('/me/favourites')).map((v) => v.id));
  } catch (_) {
    // The star shows as off.
  }
}

function backButton() {
  return el('button', { class: 'btn cv-back', attrs: { type: 'button' }, on: { click: () => ctx.navigate('#videos') } }, [
    icon('arrow-left', 18), el('span', { text: t('channel.tab.videos') }),
  ]);
}

function renderDetail(video) {
  const stage = el('div', { class: 'cv-stage', attrs: { 'data-role': 'video-player' } });
  const quality = el('select', { class: 'input cv-quality', attrs: { 'aria-label': t('channel.videos.quality'), 'data-role': 'quality', hidden: true } });
  const chapters = el('ol', { class: 'cv-chapters' }, video.chapters.map((chapter) => el('li', {}, [
    el('button', {
      class: 'cv-chapter', attrs: { type: 'button', 'data-role': 'chapter', 'data-start': chapter.start },
      on: { click: () => seek(chapter.start) },
    }, [el('span', { class: 'cv-chapter-time', text: clockText(chapter.start) }), el('span', { text: chapter.title })]),
  ])));
  const share = el('button', {
    class: 'btn', attrs: { type: 'button', 'data-role': 'share' },
    on: {
      click: () => ctx.share({
        title: video.title, text: video.description.split('\n')[0] || video.title,
        url: '/channel#videos/' + encodeURIComponent(video.id),
      }),
    },
  }, [icon('share', 18), el('span', { text: t('channel.share') })]);
  const meta = [clockText(video.duration), video.publishedAt ? formatDate(video.publishedAt, { dateStyle: 'medium' }) : null]
    .filter(Boolean).join(' · ');
  detail.replaceChildren(
    backButton(),
    stage,
    el('div', { class: 'cv-info' }, [
      el('div', { class: 'cv-title-row' }, [
        el('h1', { class: 'cv-title', text: video.title }),
        video.new ? el('span', { class: 'cv-badge cv-badge-new', text: t('channel.badge-new') }) : null,
      ]),
      el('p', { class: 'cv-meta', text: meta }),
      el('div', { class: 'cv-actions' }, [favouriteButton(video), share, quality]),
      video.description ? el('p', { class: 'cv-description', text: video.description }) : null,
      video.chapters.length ? el('h2', { class: 'cv-row-title', text: t('channel.videos.chapters') }) : null,
      video.chapters.length ? chapters : null,
    ]),
  );
  play(video, stage, quality);
}

async function play(video, stage, quality) {
  stage.replaceChildren(el('p', { class: 'cv-loading', text: t('channel.videos.loading') }));
  let stream;
  try {
    stream = await call('/videos/' + encodeURIComponent(video.id) + '/stream');
  } catch (error) {
    if (detail.dataset.id !== video.id) return;
    if (error.code === 'membership_required') {
      stage.classList.add('cv-stage-limit');
      ctx.showLimit(error, stage);
    } else {
      stage.replaceChildren(el('p', { class: 'cv-empty', text: messageOf(error) }));
    }
    return;
  }
  let videojs;
  try {
    videojs = await loadPlayerLibrary();
  } catch (error) {
    stage.replaceChildren(el('p', { class: 'cv-empty', text: t('channel.videos.player-failed') }));
    return;
  }
  if (detail.dataset.id !== video.id) return;
  const element = el('video', {
    class: 'video-js vjs-big-play-centered', attrs: { playsinline: true, preload: 'auto', poster: video.posterUrl || null, 'aria-label': video.title },
  });
  stage.replaceChildren(element);
  const native = typeof MediaSource === 'undefined' || /Apple/.test(navigator.vendor || '');
  const engine = { overrideNative: !native };
  const vjs = videojs(element, {
    controls: true, preload: 'auto', fluid: true, aspectRatio: '16:9', playbackRates: [0.75, 1, 1.25, 1.5, 2],
    html5: { hls: engine, vhs: engine, nativeAudioTracks: native, nativeVideoTracks: native },
  });
  player = { id: video.id, vjs, timer: null, lastSaved: null, duration: video.duration, resumed: false, fresh: null };
  const current = player;
  vjs.src({ src: stream.url, type: 'application/x-mpegURL' });
  // Captions (media/captions.js): the clip's subtitle renditions, over the picture; CC beside the quality.
  const captions = new CaptionLayer({ container: vjs.el() });
  if (quality.parentElement) quality.parentElement.querySelectorAll('[data-role=captions-choice]').forEach((old) => old.remove());
  quality.after(captions.picker);
  captions.attach(element, stream.url);
  // The stream URL expires (6 hours by default): a new one before it does, or when a request was
  // refused anyway, playing on from the same place; an error only if no new one is to be had.
  current.fresh = keepStreamFresh(vjs, {
    url: stream.url,
    expiresAt: stream.expiresAt,
    renew: () => call('/videos/' + encodeURIComponent(video.id) + '/stream'),
    onFailed: (error) => {
      if (player !== current) return;
      stage.dataset.failed = 'true';
      if (error && error.code === 'membership_required') {
        closePlayer();
        stage.classList.add('cv-stage-limit');
        ctx.showLimit(error, stage);
      } else if (error && !vjs.error()) {
        vjs.error({ code: 2, message: messageOf(error) });
      }
    },
  });
  vjs.on('loadedmetadata', () => {
    if (!current.resumed && stream.resumeAt) {
      current.resumed = true;
      vjs.currentTime(stream.resumeAt);
    }
    renderQuality(quality);
  });
  vjs.on('pause', () => savePosition());
  vjs.on('ended', () => savePosition());
  vjs.on('play', () => {
    clearInterval(current.timer);
    current.timer = setInterval(() => savePosition(), SAVE_EVERY);
  });
  quality.addEventListener('change', () => chooseQuality(quality.value));
}

/** The renditions the HLS engine may choose from (none where the browser plays HLS itself). */
function representations() {
  try {
    const tech = player && player.vjs.tech({ IWillNotUseThisInPlugins: true });
    const engine = tech && (tech.vhs || tech.hls);
    return engine && typeof engine.representations === 'function' ? engine.representations().filter((r) => r.height) : [];
  } catch (_) {
    return [];
  }
}

function renderQuality(select) {
  const heights = [...new Set(representations().map((r) => r.height))].sort((a, b) => b - a);
  select.hidden = heights.length < 2;
  select.replaceChildren(
    el('option', { text: t('channel.videos.quality-auto'), attrs: { value: 'auto' } }),
    ...heights.map((height) => el('option', { text: t('channel.videos.quality-height', { height }), attrs: { value: String(height) } })),
  );
  select.value = 'auto';
}

function chooseQuality(value) {
  const height = value === 'auto' ? null : Number(value);
  for (const representation of representations()) representation.enabled(height === null || representation.height === height);
}

function seek(seconds) {
  if (!player) return;
  player.vjs.currentTime(seconds);
  player.vjs.play();
}

/** Saves where playback is (on a timer, on pause, on leaving); `leaving` uses a request that outlives the page. */
function savePosition(leaving = false) {
  if (!player) return;
  const seconds = player.vjs.currentTime();
  if (!Number.isFinite(seconds) || (seconds < 1 && !player.resumed)) return;
  if (player.lastSaved !== null && Math.abs(player.lastSaved - seconds) < 0.5) return;
  player.lastSaved = seconds;
  const url = BASE + '/me/positions/' + encodeURIComponent(player.id);
  fetch(url, {
    method: 'PUT', keepalive: leaving, credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-Podium-Request': '1' },
    body: JSON.stringify({ seconds }),
  }).catch(() => {});
}

function closePlayer() {
  if (!player) return;
  savePosition(true);
  clearInterval(player.timer);
  if (player.fresh) player.fresh.stop();
  try {
    player.vjs.dispose();
  } catch (_) {
    // Already gone with its element.
  }
  player = null;
}
