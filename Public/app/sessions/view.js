// The viewer: /s/{code}. A join gate (name, passcode when needed), then the stage follows the
// presenter: page, zoom, laser pointer, blank screen. Ended sessions stay readable.

import { api } from '../core/api.js';
import { LiveClient, stagePages, stageDeck } from '../live/live.js';
import '../stage/stage.js';
import { cleanCode, CODE_LENGTH, isTyping, dialogOpen, toggleFullscreen, prefersReducedMotion, icon, infoDialog, el } from '../core/ui.js';
import { mountViewerInteraction } from '../interaction/viewer-panel.js';
import { ViewerNotes } from './viewer-notes.js';
import { strokesFor, inkDeck, onPage } from '../stage/ink.js';
import { mountSpotlight } from '../interaction/spotlight.js';
import { mountVideo } from '../media/video-stage.js';
import { joinGate } from '../live/join-gate.js';
import { t, errorText, languageSwitcher } from '../core/i18n.js';
import { startPage, addressPart } from '../core/page.js';
import { recordingBadge } from '../media/recorder.js';

const $ = (id) => document.getElementById(id);
const raw = addressPart();
const code = cleanCode(raw).code;
const stage = $('stage');
const form = $('gate-form');
const nameInput = $('viewer-name');
const passcodeInput = $('passcode');
const gateError = $('gate-error');
const joinButton = $('join-button');

// A course link (LTI) brings the session's passcode in the fragment, #passcode=…: taken out of the
// address at once (not left in the history, a bookmark or a shared screen), then used as if typed.
const givenPasscode = new URLSearchParams(location.hash.slice(1)).get('passcode');
if (givenPasscode !== null) history.replaceState(history.state, '', location.pathname + location.search);

let info = null;
let live = null;
let joined = false;
let localPage = null; // set while browsing alone (unlocked sessions)
let pointer = null; // the presenter's pointer {page, x, y}
let inking = null; // the stroke the presenter is drawing {page, tool, color, width, points} (+ deck in a room)
let inkingTimer = null;

if (prefersReducedMotion()) stage.classList.remove('animate');
const interaction = mountViewerInteraction({ watch: $('watch'), bar: $('watch-bar'), stage });
const notes = code.length === CODE_LENGTH ? new ViewerNotes({ code, stage, bar: $('watch-bar'), watch: $('watch') }) : null;
// In the next frame: changing the bar inside its own observer's callback is a loop the browser reports.
new ResizeObserver(() => requestAnimationFrame(fitBar)).observe($('watch-bar'));

function show(id) {
  for (const section of ['gate', 'not-found', 'watch']) $(section).hidden = section !== id;
}

function notFound(text) {
  $('not-found-title').textContent = t('live.no-session-code', { code: code || raw || '—' });
  $('not-found-text').textContent = text || t('live.check-code');
  document.title = t('live.no-such-session-title');
  show('not-found');
}

// ---- the gate ----

async function start() {
  if (code.length !== CODE_LENGTH) {
    notFound(t('live.code-length', { length: CODE_LENGTH }));
    return;
  }
  try {
    info = await api('/api/v1/sessions/' + encodeURIComponent(code));
  } catch (error) {
    if (error.status === 404) {
      notFound();
      return;
    }
    info = null;
    gateError.textContent = errorText(error);
  }
  fillGate();
  const saved = readSaved();
  if (saved && info && (!info.hasPasscode || saved.passcode)) {
    // Back on the same tab (reload): join again without asking.
    nameInput.value = saved.name || '';
    passcodeInput.value = saved.passcode || '';
    join();
    return;
  }
  show('gate');
  (info && info.hasPasscode && nameInput.value && !givenPasscode ? passcodeInput : nameInput).focus();
}

function fillGate() {
  document.title = t('common.page-title', { title: info ? info.title : code });
  $('gate-title').textContent = info ? info.title : t('live.join-session');
  $('gate-presenter').textContent = info && info.presenter ? t('live.by-presenter', { name: info.presenter }) : '';
  $('gate-code').textContent = code;
  // A passcode the course gave is not asked for again: nothing to type.
  if (givenPasscode) passcodeInput.value = givenPasscode;
  $('passcode-field').hidden = !(info && info.hasPasscode) || Boolean(givenPasscode);
  const ended = info && info.live === false;
  $('gate-ended').hidden = !ended;
  joinButton.textContent = ended ? t('live.view-slides') : t('common.join');
  // A course link (LTI) brings the student's name in the address: /s/{code}?name=…
  nameInput.value = (new URLSearchParams(location.search).get('name') || '').trim().slice(0, 60) || localStorage.getItem('podium.name') || '';
}

function readSaved() {
  try {
    return JSON.parse(sessionStorage.getItem('podium.join.' + code) || 'null');
  } catch (_) {
    return null;
  }
}

const gate = joinGate({
  form, nameInput, passcodeInput, passcodeField: $('passcode-field'), error: gateError, button: joinButton,
  needsPasscode: () => Boolean(info && info.hasPasscode),
  passcodeMissing: t('live.enter-passcode'),
  onJoin: () => join(),
});

function join() {
  const name = nameInput.value.trim();
  const passcode = passcodeInput.value.trim();
  try {
    if (name) localStorage.setItem('podium.name', name);
    else localStorage.removeItem('podium.name');
  } catch (_) {
    // storage may be off
  }
  joinButton.disabled = true;
  joinButton.textContent = t('live.joining');
  if (live) live.close();
  live = new LiveClient(code, { role: 'viewer', name: name || undefined, passcode: passcode || undefined });
  live.addEventListener('welcome', (event) => onWelcome(event.detail));
  live.addEventListener('change', (event) => onChange(event.detail));
  live.addEventListener('sync', () => render());
  live.addEventListener('status', (event) => setStatus(event.detail.state, event.detail.reason));
  live.addEventListener('pointer', (event) => onPointer(event.detail));
  live.addEventListener('inking', (event) => onInking(event.detail));
  live.addEventListener('fatal', (event) => onFatal(event.detail, { name, passcode }));
  interaction.attach(live);
  // What the presenter puts on screen for everyone covers the slide (the bar and poll stay usable).
  mountVideo({ live, container: $('watch'), role: 'viewer' });
  mountSpotlight({ live, container: $('watch') });
  live.connect();
}

function onFatal({ code: errorCode, message, retryAfter = 0 }) {
  sessionStorage.removeItem('podium.join.' + code);
  if (joined) {
    // Refused on a reconnect (the passcode changed, the session vanished): say so on the stage.
    setStatus(errorCode === 'ended' ? 'ended' : 'failed');
    return;
  }
  if (errorCode === 'not_found') {
    notFound();
    return;
  }
  // Said on the gate; a wrong passcode's wait counted down with Join off meanwhile (live/passcode-wait.js).
  show('gate');
  const text = { passcode_required: t('errors.passcode_required'), ended: t('errors.ended') }[errorCode]
    || errorText({ code: errorCode, message: message || t('live.could-not-join', { code: errorCode }) });
  gate.refused(errorCode, retryAfter, text, info && info.live === false ? t('live.view-slides') : t('common.join'));
}

// ---- watching ----

function onWelcome({ welcome }) {
  const session = welcome.session;
  syncPages();
  if (!joined) {
    joined = true;
    try {
      sessionStorage.setItem('podium.join.' + code, JSON.stringify({ name: nameInput.value.trim(), passcode: passcodeInput.value.trim() }));
    } catch (_) {
      // storage may be off
    }
    $('watch-title').textContent = session.title;
    document.title = t('common.page-title', { title: session.title });
    const download = $('download');
    if (session.allowDownload) {
      download.href = '/api/v1/sessions/' + encodeURIComponent(code) + (session.kind === 'room' ? '/export.pdf' : '/download');
      download.setAttribute('download', '');
      download.setAttribute('aria-label', t('live.download-deck'));
      download.title = t('live.download-deck');
      download.hidden = false;
      if (session.kind !== 'room') {
        // The deck with the presenter's ink drawn on it (in a room, the download above is that already).
        const withInk = $('download-ink');
        withInk.href = '/api/v1/sessions/' + encodeURIComponent(code) + '/export.pdf';
        withInk.setAttribute('download', '');
        withInk.prepend(icon('pen', 18));
        withInk.hidden = false;
      }
    }
    show('watch');
    keepAwake();
  }
  setInking(null); // a stroke in progress before a reconnect: its end may have been missed
  render();
  if (notes) notes.load();
}

function onChange({ event }) {
  if (event.type === 'page' || event.type === 'ended' || event.type === 'deckShown') pointer = null;
  // A room's stage changed hands or decks: a stroke in progress there ends with it.
  if (event.type === 'control' || event.type === 'deckShown') setInking(null);
  if (event.type === 'deckShown') localPage = null;
  if (event.type === 'lock') {
    if (event.locked) localPage = null;
    flash(event.locked ? t('live.lock-follow') : t('live.lock-free'));
  }
  render();
}

function flash(text) {
  const notice = $('notice');
  notice.textContent = text;
  notice.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { notice.hidden = true; }, 5000);
}

function onPointer(message) {
  pointer = message.visible === false || !Number.isFinite(message.x) ? null : { page: message.page, x: message.x, y: message.y };
  renderPointer();
}

function onInking(message) {
  setInking(message.done || !Array.isArray(message.points) ? null : message);
}

function setInking(stroke) {
  inking = stroke;
  clearTimeout(inkingTimer);
  // Should the end never come (the presenter's connection dropped), do not keep it forever.
  if (stroke) inkingTimer = setTimeout(() => setInking(null), 15000);
  renderInk();
}

/**
 * The ink of the page on display: its committed strokes and the one being drawn there. In a room,
 * only those of the deck on the stage (page 2 of one deck is not page 2 of another).
 */
let inkShown = { strokes: null, page: null, deck: undefined, list: [] };
function renderInk() {
  if (!live || !joined) return;
  const page = shownPage();
  const deck = inkDeck(live.state);
  // The same list while nothing changed, so a stroke in progress (~30 updates a second) redraws alone.
  if (inkShown.strokes !== live.state.strokes || inkShown.page !== page || inkShown.deck !== deck) {
    inkShown = { strokes: live.state.strokes, page, deck, list: strokesFor(live.state.strokes, page, deck) };
  }
  // An `inking` from an older server may lack the deck: then it is on the deck on the stage.
  const drawing = inking && deck !== undefined && inking.deck === undefined ? { ...inking, deck } : inking;
  stage.setInk(inkShown.list, onPage(drawing, page, deck) ? drawing : null);
}

function shownPage() {
  return localPage !== null ? localPage : live.state.page;
}

/** The stage's pages: the session's deck, or in a room the deck on the stage (data-deck). */
function syncPages() {
  const pages = stagePages(live.session, live.state);
  const known = stage.pages;
  if (known.length !== pages.length || pages.some((p, i) => p.imageUrl !== known[i].imageUrl)) stage.pages = pages;
  if (live.state.room) stage.dataset.deck = live.state.room.deck || '';
}

/** In a room: who presents the deck on the stage. */
function roomLine(state) {
  const deck = stageDeck(state);
  if (!deck) return t('live.waiting-first-slide');
  const active = state.room.control && state.room.control.active;
  const presenter = active && (state.room.control.presenters || []).find((p) => p.id === active);
  return t('live.room-now-presenting', { deck: deck.title, name: presenter ? presenter.name : t('live.the-moderator') });
}

let recordingShown = null;

function render() {
  if (!live || !joined) return;
  const state = live.state;
  syncPages();
  if (localPage !== null && (state.locked || localPage === state.page)) localPage = null;
  const following = localPage === null;
  document.body.dataset.locked = String(state.locked !== false);
  // "Recording" while the presenter records their voice for the replay.
  if (!recordingShown) recordingShown = recordingBadge($('watch-bar'), { before: $('status') });
  recordingShown.update(state);
  stage.show({
    page: shownPage(),
    viewport: following ? state.viewport : { x: 0, y: 0, w: 1, h: 1 },
    blank: following ? state.blank : 'none',
  });
  const media = state.playback && state.playback.media;
  // The parts of the line are separate messages, shown one after another with a dot between them.
  $('watch-page').textContent = media ? t('live.video-playing', { title: media.title })
    : state.room && !stageDeck(state) ? t('live.waiting-first-slide-dots') : [
      t('live.slide-of', { page: shownPage(), count: stage.pageCount }),
      following ? null : t('live.presenter-on', { page: state.page }),
      following && state.blank !== 'none' ? t('live.screen-paused') : null,
      state.room ? roomLine(state) : null,
    ].filter(Boolean).join(' · ');
  $('follow').hidden = following;
  renderPointer();
  renderInk();
  if (state.ended) setStatus('ended');
}

function renderPointer() {
  const visible = pointer && (pointer.page === undefined || pointer.page === shownPage()) && !live.state.ended;
  stage.setPointer(visible ? pointer : null);
}

/** On a phone the status and the actions share the line under the title. A long status
 *  ("Session ended", "Reconnecting…", longer in other languages) beside them pushed one action
 *  onto a line of its own; then the status goes above the title instead (styles.css,
 *  `[data-crowded]`), where that lets the actions keep one line together. Measured from the
 *  plain layout each time, so the bar goes back once they fit beside the status again. */
function fitBar() {
  const bar = $('watch-bar');
  const status = $('status');
  const actions = [...bar.querySelectorAll(':scope > .btn')].filter((action) => action.getClientRects().length);
  const below = (action, line) => action.offsetTop > line.offsetTop + line.offsetHeight / 2;
  bar.removeAttribute('data-crowded');
  if (!actions.some((action) => below(action, status))) return;
  bar.setAttribute('data-crowded', '');
  // More actions than one line holds even alone: the status stays beside them (a line fewer).
  if (actions.some((action) => below(action, actions[0]))) bar.removeAttribute('data-crowded');
}

function setStatus(state, reason = null) {
  if (live && live.state.ended) state = 'ended';
  document.body.dataset.connection = state;
  $('watch').classList.toggle('is-live', state === 'live');
  const text = ['connecting', 'live', 'reconnecting', 'ended', 'failed'].includes(state) ? t('live.status-' + state) : state;
  $('status-text').textContent = text;
  $('status').className = 'pill ' + ({ live: 'pill-live', reconnecting: 'pill-warn', connecting: 'pill-warn', ended: 'pill-ended', failed: 'pill-ended' }[state] || '');
  fitBar();
  const notice = $('notice');
  if (state === 'reconnecting') {
    notice.textContent = reason === 'shutdown' ? t('live.notice-restarting') : t('live.notice-lost');
    notice.hidden = false;
  } else if (state === 'ended') {
    notice.textContent = t('live.notice-ended');
    notice.hidden = false;
    clearTimeout(setStatus.timer);
    setStatus.timer = setTimeout(() => { notice.hidden = true; }, 6000);
  } else {
    notice.hidden = true;
  }
  wake();
}

// Keep a phone's screen on while following (where the browser allows it: secure contexts).
let wakeLock = null;
async function keepAwake() {
  if (!joined || !('wakeLock' in navigator) || document.visibilityState !== 'visible') return;
  if (live && live.state.ended) return;
  try {
    wakeLock = await navigator.wakeLock.request('screen');
  } catch (_) {
    wakeLock = null;
  }
}
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && !wakeLock) keepAwake();
  else if (document.visibilityState !== 'visible') wakeLock = null;
});

// Browsing alone while the presenter lets viewers (unlocked sessions, and ended ones).
function browse(delta) {
  if (!live || !joined) return;
  const state = live.state;
  if (state.locked && !state.ended) return;
  const next = Math.min(stage.pageCount, Math.max(1, shownPage() + delta));
  localPage = next === state.page ? null : next;
  pointer = null;
  render();
}

$('follow').addEventListener('click', () => {
  localPage = null;
  render();
});
$('fullscreen').addEventListener('click', () => toggleFullscreen());
// The language, while watching: a small dialog with the switcher (choosing reloads; the tab joins again by itself).
$('language-button').addEventListener('click', () => {
  infoDialog({ title: t('common.language'), body: [el('div', { class: 'gate-language' }, [languageSwitcher()])], cls: 'language-dialog' });
});

document.addEventListener('keydown', (event) => {
  if (!joined || isTyping(event) || dialogOpen() || event.altKey || event.ctrlKey || event.metaKey) return;
  switch (event.key) {
    case 'f':
    case 'F':
      toggleFullscreen();
      break;
    case 'ArrowRight':
    case 'PageDown':
      browse(1);
      break;
    case 'ArrowLeft':
    case 'PageUp':
      browse(-1);
      break;
    default:
      return;
  }
  event.preventDefault();
});

// Swipe to browse (when allowed).
let swipe = null;
stage.addEventListener('pointerdown', (event) => {
  swipe = { x: event.clientX, y: event.clientY, id: event.pointerId };
});
stage.addEventListener('pointerup', (event) => {
  if (!swipe || swipe.id !== event.pointerId) return;
  const dx = event.clientX - swipe.x;
  const dy = event.clientY - swipe.y;
  swipe = null;
  if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) browse(dx < 0 ? 1 : -1);
});
stage.addEventListener('dblclick', () => toggleFullscreen());

// The status bar dims when nobody touches anything, so the slide has the screen.
let idleTimer = null;
function wake() {
  const watch = $('watch');
  watch.classList.remove('is-idle');
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => watch.classList.add('is-idle'), 4000);
}
for (const type of ['pointermove', 'pointerdown', 'keydown']) document.addEventListener(type, wake, { passive: true });

startPage(start);
