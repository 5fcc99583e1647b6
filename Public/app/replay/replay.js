// The replay page: /s/{code}/replay and /r/{code}/replay (issue #44; docs/protocol.md, "Replay").
//
// It loads the session's timeline (GET /api/v1/sessions/{code}/replay) into a ReplayClient
// (replay-client.js: the stored events folded through live.js's reducer at the replay's time) and
// mounts on it the very renderers of the big screen (stage/big-screen.js): the stage
// (followStage), the stroke being drawn (showInking), the spotlight and the video on the stage
// (with the replay's clock), so what it shows is what the audience saw. The presenter's recorded
// voice (the ready takes, HLS audio through Video.js, with the passcode the page was let in
// with) plays in step with the timeline.
//
// Controls: the timeline with the chapters (slide changes, polls) as marks, play/pause, ±10 s,
// speed 0.5×–2×, the chapter list; keys Space/K, ←/→ (5 s), J/L (10 s), Home/End, < and >
// (speed), F (full screen), ? (the shortcuts). A running session replays up to the load.
//
// State for tests and CSS: <body data-replay="loading|ready|refused"> [data-playing]
// [data-time] (ms, the replay's time, updated each frame), #timeline[aria-valuenow],
// .replay-mark[data-at][data-kind], .replay-chapter[data-at], #replay-audio (the take's
// element, [data-take]). window.podiumReplay: the ReplayClient.
//
// Hosts get the export controls (EXPORT's replay/export-controls.js, if present) in
// #replay-host-tools.

import { t, errorText, formatNumber } from '../core/i18n.js';
import { api, currentUser } from '../core/api.js';
import { el, toggleFullscreen, isTyping, dialogOpen, icon, cleanCode } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { showShortcuts } from '../core/shortcuts.js';
import '../stage/stage.js';
import { followStage, showInking } from '../stage/driver.js';
import { mountSpotlight } from '../interaction/spotlight.js';
import { mountVideo, clockText } from '../media/video-stage.js';
import { ReplayClient, SPEEDS } from './replay-client.js';
import { ReplayAudio } from './replay-audio.js';

const $ = (id) => document.getElementById(id);
const code = cleanCode(addressPart()).code;
const PASSCODE_KEY = 'podium.replay.' + code;

let replay = null;
let audio = null;
let pointer = null;
let currentChapter = -2;

function show(which) {
  $('refused').hidden = which !== 'refused';
  $('replay').hidden = which !== 'replay';
  document.body.dataset.replay = which === 'replay' ? 'ready' : which;
}

function readPasscode() {
  try {
    return sessionStorage.getItem(PASSCODE_KEY) || '';
  } catch (_) {
    return '';
  }
}

async function load(passcode = readPasscode()) {
  document.body.dataset.replay = 'loading';
  const headers = passcode ? { 'X-Podium-Passcode': passcode } : {};
  let timeline;
  try {
    timeline = await api('/api/v1/sessions/' + encodeURIComponent(code) + '/replay', { headers });
  } catch (error) {
    await refuse(error, passcode);
    return;
  }
  try {
    if (passcode) sessionStorage.setItem(PASSCODE_KEY, passcode);
  } catch (_) {
    // storage may be off
  }
  start(timeline, passcode);
}

/** Access refused, or no such session: a clear page (sign in, not shared, passcode). */
async function refuse(error, passcode) {
  // Who is asking is known before the card shows: shown first, it read "not available" until the
  // answer came, then changed (and `data-replay="refused"` said the page was done too early).
  const user = await currentUser().catch(() => null);
  show('refused');
  let title = t('replay.not-available');
  let text = errorText(error);
  let signIn = false;
  let askPasscode = false;
  if (error.status === 404) {
    title = t('replay.no-session');
    text = t('replay.no-session-text', { code });
  } else if (error.code === 'passcode_required' || error.code === 'passcode_wrong' || error.code === 'rate_limited') {
    title = t('replay.passcode-title');
    if (error.code === 'rate_limited') text = errorText(error);
    else text = error.code === 'passcode_wrong' && passcode ? t('replay.passcode-wrong') : t('replay.passcode-text');
    try {
      sessionStorage.removeItem(PASSCODE_KEY);
    } catch (_) {
      // storage may be off
    }
    askPasscode = true;
  } else if (error.status === 401 || error.status === 403) {
    title = t('replay.not-shared');
    text = user ? t('replay.not-shared-signed-in') : t('replay.not-shared-sign-in');
    signIn = !user;
  }
  $('refused-title').textContent = title;
  $('refused-text').textContent = text;
  $('refused').querySelector('.gate-card').dataset.reason = error.status === 404 ? 'not_found' : askPasscode ? 'passcode' : signIn ? 'sign_in' : error.code || 'error';
  $('passcode-form').hidden = !askPasscode;
  $('sign-in').hidden = !signIn;
  $('sign-in').href = '/login?next=' + encodeURIComponent(location.pathname + location.search);
  if (askPasscode) $('passcode').focus();
}

$('passcode-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const passcode = $('passcode').value.trim();
  if (passcode) load(passcode);
});

function start(timeline, passcode = '') {
  replay = new ReplayClient(timeline);
  window.podiumReplay = replay;
  const session = replay.session || {};
  const title = session.title || code;
  document.title = t('replay.document-title', { title });
  $('title').textContent = title;
  const started = replay.timeline.startedAt ? new Date(replay.timeline.startedAt) : null;
  $('subtitle').textContent = started ? started.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
  $('live-badge').hidden = !replay.timeline.live;
  show('replay');
  const stage = $('stage');
  const container = $('stage-wrap');
  replay.addEventListener('sync', () => {
    pointer = null;
    render();
  });
  replay.addEventListener('change', (event) => {
    const type = event.detail.event.type;
    if (type === 'page' || type === 'deckShown' || type === 'ended') pointer = null;
    if (type === 'control' || type === 'deckShown') showInking(stage, null, replay.state);
    render();
  });
  replay.addEventListener('pointer', (event) => {
    const m = event.detail;
    pointer = m.visible === false || !Number.isFinite(m.x) ? null : { page: m.page, deck: m.deck, x: m.x, y: m.y };
    renderPointer();
  });
  replay.addEventListener('inking', (event) => showInking(stage, event.detail, replay.state));
  replay.addEventListener('time', () => renderTime());
  // The big screen's renderers, on the replay: the video follows the replay's clock (and speed).
  mountVideo({ live: replay, container, role: 'projector', clock: replay.clock });
  mountSpotlight({ live: replay, container });
  audio = new ReplayAudio({ replay, container: $('replay'), passcode });
  buildControls();
  const wanted = Number(new URLSearchParams(location.search).get('t'));
  replay.seek(Number.isFinite(wanted) && wanted > 0 ? wanted * 1000 : 0);
  mountHostTools(session);
  requestAnimationFrame(loop);
}

/** Each frame while playing: the replay steps on to its clock's time. */
function loop() {
  if (replay.playing) replay.step();
  audio.update();
  requestAnimationFrame(loop);
}

function render() {
  const state = replay.state;
  const stage = $('stage');
  followStage(stage, replay.session, state);
  const colour = state.room && state.room.background ? state.room.background : '#000000';
  stage.style.background = colour;
  $('stage-wrap').style.background = colour;
  $('ended').hidden = !state.ended;
  renderPointer();
}

function renderPointer() {
  const state = replay.state;
  // On the page shown (and in a room, on the deck shown) only.
  const deck = state.room ? state.room.deck || null : null;
  const visible = pointer && (pointer.page === undefined || pointer.page === state.page)
    && (pointer.deck === undefined || (pointer.deck || null) === deck) && !state.ended;
  $('stage').setPointer(visible ? { x: pointer.x, y: pointer.y } : null);
}

// ---- controls

function chapterLabel(chapter) {
  if (chapter.kind === 'poll') return t('replay.chapter-poll', { question: chapter.poll.question || '' });
  return t('replay.chapter-slide', { page: chapter.page });
}

function buildControls() {
  const duration = replay.duration;
  const timeline = $('timeline');
  timeline.setAttribute('aria-valuemax', String(Math.round(duration / 1000)));
  // Chapter marks on the timeline, and the list beside the stage.
  const marks = $('marks');
  const list = $('chapters');
  marks.replaceChildren();
  list.replaceChildren();
  for (const chapter of replay.chapters) {
    const label = clockText(chapter.at / 1000) + ' · ' + chapterLabel(chapter);
    const mark = el('span', { class: 'replay-mark is-' + chapter.kind, data: { at: chapter.at, kind: chapter.kind }, attrs: { title: label } });
    mark.style.insetInlineStart = fraction(chapter.at) * 100 + '%';
    marks.append(mark);
    const button = el('button', {
      class: 'replay-chapter is-' + chapter.kind, data: { at: chapter.at, kind: chapter.kind }, attrs: { type: 'button' },
      on: { click: () => replay.seek(chapter.at) },
    }, [
      el('span', { class: 'replay-chapter-time', text: clockText(chapter.at / 1000) }),
      icon(chapter.kind === 'poll' ? 'chart' : 'note', 16),
      el('span', { class: 'replay-chapter-label', text: chapterLabel(chapter) }),
    ]);
    list.append(el('li', {}, [button]));
  }
  if (!replay.chapters.length) list.append(el('li', { class: 'replay-empty', text: t('replay.no-chapters') }));
  // The voice's takes, as a band under the track.
  const takes = $('takes');
  takes.replaceChildren(...replay.takes.map((take) => {
    const band = el('span', { class: 'replay-take', data: { take: take.id } });
    band.style.insetInlineStart = fraction(take.start) * 100 + '%';
    band.style.width = (fraction(take.end) - fraction(take.start)) * 100 + '%';
    return band;
  }));
  // Speed.
  const speed = $('speed');
  speed.replaceChildren(...SPEEDS.map((rate) => el('option', { text: rate === 1 ? t('replay.normal-speed') : formatNumber(rate) + '×', attrs: { value: rate } })));
  speed.value = '1';
  speed.addEventListener('change', () => replay.setSpeed(Number(speed.value)));
  $('play').addEventListener('click', () => replay.toggle());
  $('back-10').addEventListener('click', () => skip(-10000));
  $('forward-10').addEventListener('click', () => skip(10000));
  $('fullscreen').addEventListener('click', () => toggleFullscreen());
  $('help').addEventListener('click', () => showShortcuts());
  $('chapters-toggle').addEventListener('click', () => {
    const open = $('side').hidden;
    $('side').hidden = !open;
    $('chapters-toggle').setAttribute('aria-expanded', String(open));
    document.body.dataset.chapters = String(open);
  });
  $('stage').addEventListener('dblclick', () => toggleFullscreen());
  bindTimeline(timeline);
  bindKeys();
  renderTime();
}

function fraction(at) {
  return replay.duration > 0 ? Math.max(0, Math.min(1, at / replay.duration)) : 0;
}

function skip(ms) {
  replay.seek(replay.time + ms);
}

/** Click or drag on the timeline: a seek (the state follows while dragging). */
function bindTimeline(timeline) {
  let dragging = false;
  let resume = false;
  const at = (event) => {
    const box = timeline.getBoundingClientRect();
    let x = (event.clientX - box.left) / Math.max(1, box.width);
    if (getComputedStyle(timeline).direction === 'rtl') x = 1 - x;
    return Math.max(0, Math.min(1, x)) * replay.duration;
  };
  timeline.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    dragging = true;
    resume = replay.playing;
    if (resume) replay.pause();
    timeline.setPointerCapture(event.pointerId);
    replay.seek(at(event));
  });
  timeline.addEventListener('pointermove', (event) => {
    if (dragging) replay.seek(at(event));
  });
  const end = (event) => {
    if (!dragging) return;
    dragging = false;
    replay.seek(at(event));
    if (resume) replay.play();
  };
  timeline.addEventListener('pointerup', end);
  timeline.addEventListener('pointercancel', () => {
    dragging = false;
    if (resume) replay.play();
  });
}

function bindKeys() {
  document.addEventListener('keydown', (event) => {
    if (isTyping(event) || dialogOpen() || event.altKey || event.metaKey || event.ctrlKey) return;
    const target = event.target;
    // Space on a button presses that button.
    if (event.key === ' ' && (target instanceof HTMLButtonElement || target instanceof HTMLSelectElement || target instanceof HTMLAnchorElement)) return;
    const actions = {
      ' ': () => replay.toggle(), k: () => replay.toggle(), K: () => replay.toggle(),
      ArrowLeft: () => skip(-5000), ArrowRight: () => skip(5000),
      j: () => skip(-10000), J: () => skip(-10000), l: () => skip(10000), L: () => skip(10000),
      Home: () => replay.seek(0), End: () => replay.seek(replay.duration),
      '<': () => stepSpeed(-1), '>': () => stepSpeed(1), f: () => toggleFullscreen(), F: () => toggleFullscreen(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
}

function stepSpeed(direction) {
  replay.stepSpeed(direction);
  $('speed').value = String(replay.speed);
}

function renderTime() {
  if (!replay) return;
  const time = replay.time;
  const text = clockText(time / 1000) + ' / ' + clockText(replay.duration / 1000);
  if ($('time').textContent !== text) $('time').textContent = text;
  const timeline = $('timeline');
  timeline.setAttribute('aria-valuenow', String(Math.round(time / 1000)));
  timeline.setAttribute('aria-valuetext', text);
  const f = fraction(time) * 100 + '%';
  $('played').style.width = f;
  $('thumb').style.insetInlineStart = f;
  const playing = replay.playing;
  const play = $('play');
  if (play.dataset.playing !== String(playing)) {
    play.dataset.playing = String(playing);
    play.replaceChildren(icon(playing ? 'pause' : 'play', 22));
    const label = playing ? t('replay.pause') : t('replay.play');
    play.setAttribute('aria-label', label);
    play.title = label;
    play.setAttribute('aria-pressed', String(playing));
  }
  if ($('speed').value !== String(replay.speed)) $('speed').value = String(replay.speed);
  // The chapter the replay is in.
  let current = -1;
  replay.chapters.forEach((chapter, index) => { if (chapter.at <= time) current = index; });
  if (current !== currentChapter) {
    currentChapter = current;
    $('chapters').querySelectorAll('.replay-chapter').forEach((button, index) => {
      button.classList.toggle('is-current', index === current);
      if (index === current) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    });
  }
  document.body.dataset.playing = String(playing);
  document.body.dataset.time = String(Math.round(time));
}

/** EXPORT's controls (Export MP4, Publish) for hosts, when that module is there. */
async function mountHostTools(session) {
  const place = $('replay-host-tools');
  try {
    // Named at run time: the module is EXPORT's, and a replay page works without it.
    const module = await import(new URL('export-controls.js', import.meta.url).href);
    const mount = module.mountExportControls || module.default;
    if (typeof mount === 'function') await mount({ container: place, code, session, replay });
  } catch (_) {
    // no export controls (not built, or not a host): nothing here
  }
}

startPage(() => load());
