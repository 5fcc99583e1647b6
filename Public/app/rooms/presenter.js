// A presenter's page in a room: /r/{code}. Name (and passcode) first; then their decks
// (upload, or pick from the library when signed in), asking for control, and — while in
// control — driving the stage: which deck, pages, zoom, laser pointer, ink (draw mode, ink.js).

import { api, currentUser } from '../core/api.js';
import { formatNumber, t } from '../core/i18n.js';
import { LiveClient } from '../live/live.js';
import { consoleDriver } from '../stage/console-driver.js';
import { liveCommands, markPending } from '../live/commands.js';
import { RoomVideos } from './videos.js';
import { mountPresenterInteraction } from '../interaction/presenter-panel.js';
import { joinGate } from '../live/join-gate.js';
import { toast, el, cleanCode, CODE_LENGTH } from '../core/ui.js';
import { startPage, addressPart } from '../core/page.js';
import { presenterName, nowPresenting, formatDuration, countdownText, secondsSince, everySecond, errorText, uploadToRoom, stageDeck, roomLinks, shortURL, wireSidePanel, pickFromLibrary, onStageText } from './common.js';
import { serverNow, talkClock, talkLength, timeOnStage } from './talk.js';
import { roomOf, controlOf, presenterDrives } from './control.js';
import { mountSaveBanner } from '../live/save-banner.js';

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
const pendingUploads = new Map(); // deck id -> title, until it joins the room

document.body.classList.add('viewer-page');

// Commands go out through the page's senders (live/commands.js); a refusal is said once, in the
// control card, which is always on screen.
const commands = liveCommands({
  live: () => live,
  closed: () => ended,
  reconcile: () => reconcile(),
  accepted: () => { $('control-error').textContent = ''; },
  refused: (error) => { $('control-error').textContent = errorText(error); },
  errorText,
});
/** Sends a command; a refusal shows as a clear message. Resolves with the ack, or null. */
const send = (command) => commands.send(command);

const driver = consoleDriver({
  commands,
  inkKey: code,
  live: () => live,
  state: () => (live && joined ? live.state : null),
  drives: () => presenterDrives(live, myId, ended),
});

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
  if (saveBanner) saveBanner.stop();
  saveBanner = mountSaveBanner(live, $('stage-wrap'));
  live.addEventListener('welcome', (event) => onWelcome(event.detail.welcome, { name, passcode }));
  live.addEventListener('change', (event) => onChange(event.detail.event));
  live.addEventListener('sync', () => render());
  live.addEventListener('status', (event) => setConnection(event.detail.state));
  live.addEventListener('fatal', (event) => onFatal(event.detail));
  driver.listen(live);
  live.addEventListener('message', (event) => {
    if (event.detail.type === 'roomPresence') {
      connected = new Set(event.detail.connected || []);
      if (joined) render();
    }
  });
  live.addEventListener('rejected', (event) => {
    if (!event.detail.id && event.detail.message) toast(errorText(event.detail), { kind: 'error' });
  });
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

$('request').addEventListener('click', () => send({ type: 'request' }));
$('cancel-request').addEventListener('click', () => send({ type: 'cancelRequest' }));
$('return-control').addEventListener('click', () => send({ type: 'returnControl' }));
$('pass').addEventListener('click', () => {
  const target = $('pass-to').value;
  if (target) send({ type: 'pass', presenterId: target });
});
$('dnd').addEventListener('change', (event) => send({ type: 'doNotDisturb', on: event.target.checked }));

// ---- decks ----

$('upload').addEventListener('click', () => $('file-input').click());
$('file-input').addEventListener('change', async (event) => {
  const file = event.target.files && event.target.files[0];
  event.target.value = '';
  if (file) await upload(file);
});

async function upload(file) {
  const status = $('upload-status');
  const bar = el('span', { class: 'progress-bar' });
  const label = el('span', { class: 'room-upload-label', text: t('rooms.uploading', { file: file.name, percent: 0 }) });
  status.replaceChildren(label, el('span', { class: 'progress-track' }, [bar]));
  status.hidden = false;
  status.dataset.state = 'uploading';
  $('upload').disabled = true;
  try {
    const added = await uploadToRoom(code, file, {
      asPresenter: true,
      onProgress: (fraction) => {
        const percent = Math.round(fraction * 100);
        bar.style.width = percent + '%';
        label.textContent = t('rooms.uploading', { file: file.name, percent });
      },
    });
    if (!((roomOf(live) && roomOf(live).decks) || []).some((d) => d.id === added.deckId)) pendingUploads.set(added.deckId, added.title);
    status.hidden = true;
    status.dataset.state = 'done';
  } catch (error) {
    status.dataset.state = 'failed';
    label.textContent = errorText(error);
    toast(errorText(error), { kind: 'error' });
    setTimeout(() => { status.hidden = true; }, 6000);
  } finally {
    $('upload').disabled = false;
    render();
  }
}

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

  renderControl(c);
  renderMyDecks(r, driving);
  renderPresenters(r, c);
  tick();
}

function renderControl(c) {
  const queue = c.queue || [];
  const position = queue.indexOf(myId);
  const presenting = c.active === myId;
  const borrowed = presenting && Boolean(c.lender);
  const lent = c.lender === myId;
  let state = 'idle';
  let title = t('rooms.you-are-not-presenting');
  let text = t('rooms.control.has-stage-ask', { name: nowPresenting(roomOf(live)) });
  if (presenting) {
    state = 'presenting';
    title = t('rooms.you-are-presenting');
    text = borrowed && position >= 0 ? t('rooms.control.lent-you-queued', { name: presenterName(roomOf(live), c.lender), position: position + 1 })
      : borrowed ? t('rooms.control.lent-you', { name: presenterName(roomOf(live), c.lender) })
      : live.state.playback ? t('rooms.control.video-on')
        : t('rooms.control.deck-on');
  } else if (lent) {
    state = 'lent';
    title = t('rooms.control.you-lent');
    text = t('rooms.control.has-it', { name: presenterName(roomOf(live), c.active) });
  } else if (position >= 0) {
    state = 'waiting';
    title = position === 0 ? t('rooms.control.you-are-next') : t('rooms.control.waiting', { position: position + 1 });
    text = c.moderatorDoNotDisturb ? t('rooms.control.sees-soon') : t('rooms.control.sees');
  } else if (!c.active && !c.presenters.length) {
    text = t('rooms.control.moderator-has');
  }
  if (ended) {
    state = 'idle';
    title = t('rooms.control.ended');
    text = t('rooms.control.thank-you');
  }
  $('control-card').dataset.state = state;
  $('control-card').dataset.position = position >= 0 ? String(position + 1) : '';
  $('control-title').textContent = title;
  $('control-text').textContent = text;
  // A borrower may ask for a turn of their own; whoever presents in their own right has one.
  $('request').hidden = (presenting && !borrowed) || lent || position >= 0 || ended;
  $('cancel-request').hidden = position < 0 || ended;
  $('return-control').hidden = !(borrowed || lent) || ended;
  $('return-control').querySelector('span:last-child').textContent = lent ? t('rooms.control.take-back') : t('rooms.return-control');

  const others = (c.presenters || []).filter((p) => p.id !== myId);
  const canPass = presenting && !borrowed && others.length > 0 && !ended;
  $('pass-field').hidden = !canPass;
  const select = $('pass-to');
  const keep = select.value;
  select.replaceChildren(...others.map((p) => el('option', {
    text: connected.has(p.id) ? p.name : t('rooms.offline-name', { name: p.name }), attrs: { value: p.id },
  })));
  if (others.some((p) => p.id === keep)) select.value = keep;

  $('dnd-field').hidden = !presenting || ended;
  $('dnd').checked = Boolean(c.presenterDoNotDisturb);
  $('dnd-hint').textContent = c.presenterDoNotDisturb && queue.length
    ? t('rooms.dnd-waiting', { count: queue.length })
    : t('rooms.requests-from-others-wait-quietly');
}

function renderMyDecks(r, driving) {
  const mine = (r.decks || []).filter((d) => d.owner === myId);
  $('deck-count').textContent = formatNumber(mine.length);
  $('my-decks-empty').hidden = mine.length > 0 || pendingUploads.size > 0;
  const items = mine.map((deck) => {
    const first = deck.pages[0];
    const onStage = deck.id === r.deck;
    return el('li', { class: 'room-item deck-item', data: { deckId: deck.id } }, [
      first ? el('img', { class: 'deck-mini', attrs: { src: first.thumbnailUrl || first.mediumUrl, alt: '', loading: 'lazy' } }) : el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [el('strong', { text: deck.title }), onStage ? el('span', { class: 'badge badge-live', text: t('rooms.on-stage') }) : null]),
        el('span', { class: 'room-item-meta', text: deck.page > 1 && !onStage ? t('rooms.slides-left-at', { count: deck.pages.length, page: deck.page }) : t('rooms.slides', { count: deck.pages.length }) }),
      ]),
      driving && !onStage ? el('button', {
        class: 'btn btn-sm', text: t('rooms.show'),
        attrs: { type: 'button', 'data-action': 'show-deck', disabled: onStage, title: t('rooms.show-deck-title') },
        on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
      }) : null,
    ]);
  });
  for (const [id, title] of pendingUploads) {
    if ((r.decks || []).some((d) => d.id === id)) {
      pendingUploads.delete(id);
      continue;
    }
    items.push(el('li', { class: 'room-item deck-item is-processing', data: { processing: 'true' } }, [
      el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [el('strong', { text: title }), el('span', { class: 'room-item-meta', text: t('rooms.preparing-slides') })]),
    ]));
  }
  $('my-decks').replaceChildren(...items);

  // Deck tabs over the thumbnails while presenting with more than one deck.
  const bar = $('deckbar');
  bar.hidden = !driving || mine.length < 2;
  if (!bar.hidden) {
    bar.replaceChildren(el('span', { class: 'deckbar-label', text: t('rooms.deckbar-show') }), ...mine.map((deck) => el('button', {
      class: 'deck-tab', text: deck.title,
      attrs: { type: 'button', 'aria-pressed': String(deck.id === r.deck), 'data-deck-id': deck.id },
      on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
    })));
  }
}

function renderPresenters(r, c) {
  const presenters = c.presenters || [];
  $('presenter-count').textContent = formatNumber(presenters.length);
  $('presenters').replaceChildren(...presenters.map((p) => {
    const online = connected.has(p.id);
    const position = (c.queue || []).indexOf(p.id);
    const decks = (r.decks || []).filter((d) => d.owner === p.id).length;
    return el('li', { class: 'room-item presenter-item', data: { presenterId: p.id, connected: String(online) } }, [
      el('span', { class: 'presence-dot' + (online ? ' is-on' : ''), attrs: { title: online ? t('rooms.connected') : t('rooms.not-connected') } }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [
          el('strong', { text: p.id === myId ? t('rooms.you-name', { name: p.name }) : p.name }),
          c.active === p.id ? el('span', { class: 'badge badge-live', text: t('rooms.presenting') }) : null,
          position >= 0 ? el('span', { class: 'badge badge-wait', text: t('rooms.waiting-position', { position: position + 1 }) }) : null,
        ]),
        el('span', { class: 'room-item-meta', text: t('rooms.decks-count', { count: decks }) }),
      ]),
    ]);
  }));
}

let talkPhase = null; // the phase of the talk I speak in at the last tick ({presenter, phase})

function tick() {
  if (!live || !live.session) return;
  const r = roomOf(live);
  const now = serverNow(live);
  // The talk on stage: its time adds up across lends and turns (talk.js).
  const clock = r ? talkClock(r, now, { ended }) : null;
  $('now-time').textContent = clock && clock.remaining != null ? remainingText(clock)
    : formatDuration(clock ? clock.elapsed : secondsSince((r && r.controlSince) || live.session.startedAt));
  $('now-pill').dataset.phase = clock ? clock.phase : 'idle';
  if (r) renderTalkClock(r, clock, now);
}

/** "4:12 left", or "over by 0:12". */
function remainingText(clock) {
  return clock.remaining < 0
    ? t('rooms.talk.over-by', { time: formatDuration(-clock.remaining) })
    : t('rooms.talk.time-left', { time: formatDuration(Math.ceil(clock.remaining)) });
}

/**
 * My talk's clock in the control card: counting down while I speak (in my own time, or in the
 * time of whoever lent me the stage), with a warning two minutes and thirty seconds before the end
 * and over time; while I wait, the length of my talk and the time I have had.
 */
function renderTalkClock(r, clock, now) {
  const box = $('talk-clock');
  const c = r.control || {};
  const speaking = clock && (clock.presenter === myId || c.active === myId) && !ended;
  const length = talkLength(r, myId);
  const used = myId ? timeOnStage(r, myId, now) : 0;
  box.hidden = !speaking && !length && !used;
  if (box.hidden) {
    talkPhase = null;
    return;
  }
  if (!speaking) {
    box.dataset.phase = 'idle';
    $('talk-clock-label').textContent = t('rooms.talk.yours');
    $('talk-clock-time').textContent = length ? formatDuration(Math.max(0, length - used)) : formatDuration(used);
    $('talk-clock-note').textContent = length
      ? (used ? t('rooms.talk.waiting-used', { used: formatDuration(used), length: formatDuration(length) }) : t('rooms.talk.waiting-length', { length: formatDuration(length) }))
      : t('rooms.talk.waiting-open', { used: formatDuration(used) });
    talkPhase = null;
    return;
  }
  box.dataset.phase = clock.phase;
  $('talk-clock-label').textContent = clock.presenter === myId ? t('rooms.talk.yours') : t('rooms.talk.named', { name: presenterName(r, clock.presenter) });
  $('talk-clock-time').textContent = clock.remaining == null ? formatDuration(clock.elapsed) : countdownText(clock.remaining);
  $('talk-clock-note').textContent = clock.remaining == null ? t('rooms.talk.speaking-open')
    : t('rooms.talk.speaking-' + clock.phase, { length: formatDuration(clock.length) });
  // The warnings, said once each as the talk reaches them.
  const before = talkPhase && talkPhase.presenter === clock.presenter ? talkPhase.phase : null;
  if (before && before !== clock.phase && clock.phase !== 'running') {
    toast(t('rooms.talk.toast-' + clock.phase), { kind: clock.phase === 'warning' ? 'info' : 'error', timeout: 6000 });
  }
  talkPhase = { presenter: clock.presenter, phase: clock.phase };
}
everySecond(tick);

function setConnection(state) {
  if (ended) state = 'ended';
  document.body.dataset.connection = state;
  const text = ['connecting', 'live', 'reconnecting', 'ended', 'failed'].includes(state) ? t('rooms.state.' + state) : state;
  $('connection-text').textContent = text;
  $('connection').className = 'pill ' + ({ live: 'pill-live', reconnecting: 'pill-warn', connecting: 'pill-warn', ended: 'pill-ended', failed: 'pill-ended' }[state] || '');
}

startPage(start);
