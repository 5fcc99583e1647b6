// A presenter's page in a room: /r/{code}. Name (and passcode) first; then their decks
// (upload, or pick from the library when signed in), asking for control, and — while in
// control — driving the stage: which deck, pages, zoom, laser pointer, ink (draw mode, ink.js).
// This entry module wires the page's parts: the join gate (live/join-gate.js), the control card
// (presenter-control.js), my decks and the presenters (presenter-decks.js), the clocks
// (presenter-clocks.js), the room's videos, the stage driver and the side panel.

import { api, currentUser } from '../core/api.js';
import { t } from '../core/i18n.js';
import { LiveClient } from '../live/live.js';
import { consoleDriver } from '../stage/console-driver.js';
import { liveCommands, markPending } from '../live/commands.js';
import { RoomVideos } from './videos.js';
import { mountPresenterInteraction } from '../interaction/presenter-panel.js';
import { joinGate } from '../live/join-gate.js';
import { toast, el, cleanCode, CODE_LENGTH } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { nowPresenting, everySecond, errorText, stageDeck, roomLinks, shortURL, wireSidePanel, pickFromLibrary, onStageText } from './common.js';
import { roomOf, controlOf, presenterDrives, watchRoomPresence } from './control.js';
import { presenterControl } from './presenter-control.js';
import { presenterDecks } from './presenter-decks.js';
import { presenterClocks } from './presenter-clocks.js';
import { showConnection, toastOtherRejections } from '../live/console-bar.js';
import { mountSaveBanner } from '../live/save-banner.js';
import { mountRecorder } from '../media/recorder.js';

wireSidePanel();

const $ = (id) => document.getElementById(id);
const code = cleanCode(addressPart()).code;
const stage = $('stage');
const nameInput = $('presenter-name');
const passcodeInput = $('passcode');
const gateError = $('gate-error');
const joinButton = $('join-button');
const storageKey = 'podium.room.' + code;

let info = null;
let user = null;
let live = null;
let saveBanner = null;
let joined = false;
let ended = false;
let myId = null;
let connected = new Set();
let interaction = null; // the side panel: polls and the questions of my turns

document.body.classList.add('viewer-page');

// Commands go out through the page's senders (live/commands.js); a refusal is said once, in the
// control card, which is always on screen.
const commands = liveCommands({
  live: () => live, closed: () => ended, reconcile: () => reconcile(),
  accepted: () => { $('control-error').textContent = ''; },
  refused: (error) => { $('control-error').textContent = errorText(error); },
  errorText,
});
/** Sends a command; a refusal shows as a clear message. Resolves with the ack, or null. */
const send = (command) => commands.send(command);
// The microphone for the replay while this presenter has the stage (media/recorder.js); the take
// is this browser's (the identity cookie), sent as the presenter in control.
// Made when the page joins (its texts are loaded by then).
let recorder = null;

const driver = consoleDriver({
  commands,
  inkKey: code,
  live: () => live,
  state: () => (live && joined ? live.state : null),
  drives: () => presenterDrives(live, myId, ended),
});

// The page's parts: the control card, my decks and the presenters, the clocks.
const parts = { live: () => live, myId: () => myId, ended: () => ended, connected: () => connected };
const control = presenterControl({ ...parts, send });
const decks = presenterDecks({ ...parts, code, send, render: () => render() });
const clocks = presenterClocks(parts);

// ---- the gate ----

async function start() {
  $('gate-code').textContent = code;
  $('audience-link').href = '/s/' + code;
  if (code.length !== CODE_LENGTH) {
    gateFailed(t('rooms.gate.no-such-room'), t('rooms.gate.code-length', { count: CODE_LENGTH }));
    return;
  }
  try {
    info = await api('/api/v1/sessions/' + encodeURIComponent(code));
  } catch (error) {
    if (error.status === 404) {
      gateFailed(t('rooms.gate.no-room-title', { code }), t('rooms.gate.check-link'));
      return;
    }
    gateError.textContent = errorText(error);
  }
  try {
    user = await currentUser();
  } catch (_) {
    user = null;
  }
  if (info) {
    const audience = roomLinks(info).audience;
    $('audience-link').href = audience;
    $('join-code').textContent = code;
    $('link-audience').href = audience;
    $('link-audience').textContent = shortURL(audience);
    $('gate-title').textContent = info.title;
    document.title = info.title + ' — Podium';
    $('passcode-field').hidden = !info.hasPasscode;
    if (info.kind !== 'room') {
      gateFailed(info.title, t('rooms.gate.not-a-room'), { href: '/s/' + code, label: t('rooms.gate.watch-it') });
      return;
    }
    if (!info.live) {
      $('gate-ended').hidden = false;
      joinButton.disabled = true;
    }
  }
  const saved = readSaved();
  nameInput.value = (saved && saved.name) || localStorage.getItem('podium.name') || (user && user.name) || '';
  passcodeInput.value = (saved && saved.passcode) || '';
  show('gate');
  if (saved && saved.name && info && info.live && (!info.hasPasscode || saved.passcode)) {
    join(); // back on this page (a reload): in again without asking
    return;
  }
  (nameInput.value && info && info.hasPasscode ? passcodeInput : nameInput).focus();
}

function readSaved() {
  try {
    return JSON.parse(localStorage.getItem(storageKey) || 'null');
  } catch (_) {
    return null;
  }
}

function show(which) {
  $('gate').hidden = which !== 'gate';
  $('room').hidden = which !== 'room';
  document.body.classList.toggle('viewer-page', which === 'gate');
  document.body.classList.toggle('console-page', which === 'room');
}

function gateFailed(title, text, link) {
  $('gate-title').textContent = title;
  $('gate-lead').textContent = text;
  $('gate-form').hidden = true;
  if (link) $('gate-lead').after(el('a', { class: 'btn btn-primary btn-block', text: link.label, attrs: { href: link.href } }));
  show('gate');
}

const gate = joinGate({
  form: $('gate-form'), nameInput, passcodeInput, passcodeField: $('passcode-field'), error: gateError, button: joinButton,
  needsPasscode: () => Boolean(info && info.hasPasscode),
  nameRequired: t('rooms.gate.enter-name'), passcodeMissing: t('rooms.enter-the-passcode'),
  onJoin: () => join(),
});

function join() {
  const name = nameInput.value.trim();
  const passcode = passcodeInput.value.trim();
  joinButton.disabled = true;
  joinButton.textContent = t('rooms.gate.joining');
  if (live) live.close();
  live = new LiveClient(code, { role: 'presenter', name, passcode: passcode || undefined });
  if (!recorder) {
    recorder = mountRecorder({
      code, live: () => live, send, asPresenter: true,
      bar: document.querySelector('.console-bar'), before: document.getElementById('connection'),
    });
  }
  if (saveBanner) saveBanner.stop();
  saveBanner = mountSaveBanner(live, $('stage-wrap'));
  live.addEventListener('welcome', (event) => onWelcome(event.detail.welcome, { name, passcode }));
  live.addEventListener('change', (event) => onChange(event.detail.event));
  live.addEventListener('sync', () => render());
  live.addEventListener('status', (event) => setConnection(event.detail.state));
  live.addEventListener('fatal', (event) => onFatal(event.detail));
  driver.listen(live);
  watchRoomPresence(live, (ids) => {
    connected = ids;
    if (joined) render();
  });
  toastOtherRejections(live, errorText);
  live.connect();
}

function onFatal({ code: errorCode, message, retryAfter = 0 }) {
  if (joined) {
    setConnection(errorCode === 'ended' ? 'ended' : 'failed');
    if (errorCode !== 'ended') toast(errorText({ code: errorCode, message }), { kind: 'error', timeout: 0 });
    return;
  }
  try {
    localStorage.removeItem(storageKey);
  } catch (_) {
    // storage may be off
  }
  show('gate');
  // A wrong passcode may come with a wait: counted down, Join off meanwhile (live/passcode-wait.js).
  gate.refused(errorCode, retryAfter, errorText({ code: errorCode, message }), t('rooms.join-as-presenter'));
}

function onWelcome(welcome, { name, passcode }) {
  myId = welcome.presenterId || myId;
  connected = new Set(welcome.connectedPresenters || []);
  if (!joined) {
    joined = true;
    try {
      localStorage.setItem(storageKey, JSON.stringify({ name, passcode }));
      localStorage.setItem('podium.name', name);
    } catch (_) {
      // storage may be off
    }
    $('room-title').textContent = welcome.session.title;
    document.title = t('rooms.presenter-document-title', { title: welcome.session.title });
    $('from-library').hidden = !user;
    show('room');
    videos.refresh();
    // Polls (while I have the stage) and the questions asked during my turns.
    interaction = mountPresenterInteraction({
      live, code, deckId: null, gotoPage: (page) => driver.goto(page),
      panel: $('side-panel'), controls: document.createElement('div'), lockSwitch: $('follow-lock'),
    });
    interaction.state.fromWelcome(welcome); // it came before the panel was there
    const pollsPane = $('pane-polls');
    if (pollsPane) {
      pollsPane.prepend(el('p', {
        class: 'polls-hint', attrs: { id: 'polls-hint', 'data-role': 'polls-hint' },
        text: t('rooms.polls-hint'),
      }));
    }
  }
  document.body.dataset.presenterId = myId || '';
  render();
}

// ---- commands ----

function reconcile() {
  markPending(live);
  if (joined) render();
}

// ---- decks ----

$('from-library').addEventListener('click', () => pickFromLibrary({ code, room: roomOf(live), asPresenter: true }));

// ---- videos: the room's own clips, shown from here while in control ----

const videos = new RoomVideos({
  card: $('videos-card'), code, mayDrive: () => presenterDrives(live, myId, ended),
  show: (videoId) => driver.sendVideoCommand({ type: 'showVideo', videoId }),
  onStage: () => (live && live.state.playback ? live.state.playback.video : null),
});

// ---- rendering ----

function onChange(event) {
  if (event.type === 'control' && myId) {
    const position = (controlOf(live).queue || []).indexOf(myId);
    if (event.active === myId) toast(t('rooms.toast.you-have-stage'), { kind: 'success' });
    // A lend given back: the request stays in the queue, and the speaker is told so plainly.
    else if (wasActive && position >= 0) toast(t('rooms.toast.still-queued', { position: position + 1 }), { kind: 'info', timeout: 6000 });
    else if (event.lender === null && controlOf(live).active !== myId && wasActive) toast(t('rooms.toast.has-stage-now', { name: nowPresenting(roomOf(live)) }));
  }
  if (event.type === 'ended') {
    ended = true;
    $('ended-overlay').hidden = false;
  }
  render();
}
let wasActive = false;

function render() {
  if (!live || !joined) return;
  const state = live.state;
  const r = roomOf(live);
  if (!r) return;
  const c = controlOf(live);
  const deck = stageDeck(state);
  const driving = presenterDrives(live, myId, ended);
  if (driving !== wasActive || videos.shownWith !== (live.state.playback && live.state.playback.video)) {
    videos.shownWith = live.state.playback && live.state.playback.video;
    videos.render(); // its Show buttons follow control and the stage
  }
  wasActive = driving;
  if (state.ended && !ended) {
    ended = true;
    $('ended-overlay').hidden = false;
  }
  document.body.dataset.drives = String(driving);
  if ($('polls-hint')) $('polls-hint').hidden = driving;
  // Recording while driving; a take under way ends when the stage or the room does.
  if (recorder) {
    recorder.button.hidden = !driving && !recorder.recording;
    if (recorder.recording && (!driving || ended)) recorder.stop();
  }
  const me = (c.presenters || []).find((p) => p.id === myId);
  $('me-line').textContent = t('rooms.me-line', { name: me ? me.name : nameInput.value.trim() });

  // The stage.
  driver.sync(state, live.session);
  stage.style.background = r.background || '#000000';
  $('idle').hidden = Boolean(deck) || ended;
  const hasDeck = (r.decks || []).some((d) => d.owner === myId);
  const waiting = (c.queue || []).includes(myId);
  $('idle-text').textContent = driving
    ? (hasDeck ? t('rooms.idle.choose-deck') : t('rooms.idle.upload-to-show'))
    : waiting ? t('rooms.idle.request-in')
      : hasDeck ? t('rooms.idle.slides-ready')
        : t('rooms.upload-your-slides-then-ask');
  $('thumbs').hidden = !deck || !driving;
  $('controls').hidden = !deck || !driving;
  $('stage-label').textContent = driving ? t('rooms.you-are-presenting') : t('rooms.on-the-projector');
  $('onstage-deck').textContent = onStageText(state, deck);

  // Who presents.
  $('now-presenting').textContent = driving ? t('rooms.you-are-presenting') : t('rooms.now-presenting', { name: nowPresenting(r) });
  $('now-pill').className = 'pill nowpill' + (driving ? ' pill-live' : '');

  control.render(c);
  decks.render(r, c, driving);
  clocks.tick();
}

everySecond(() => clocks.tick());

function setConnection(state) {
  if (ended) state = 'ended';
  showConnection(state, ['connecting', 'live', 'reconnecting', 'ended', 'failed'].includes(state) ? t('rooms.state.' + state) : state);
}

startPage(start);
