// A presenter's page in a room: /r/{code}. Name (and passcode) first; then their decks
// (upload, or pick from the library when signed in), asking for control, and — while in
// control — driving the stage: which deck, pages, zoom, laser pointer, ink (draw mode, ink.js).

import { api, currentUser } from './api.js';
import { LiveClient } from './live.js';
import { StageDriver } from './stage-driver.js';
import { RoomVideos } from './room-videos.js';
import { mountPresenterInteraction } from './polls-presenter.js';
import { showRetry, passcodeRefusal } from './countdown.js';
import { hydrateIcons, toast, el, plural, cleanCode, CODE_LENGTH } from './ui.js';
import { presenterName, nowPresenting, formatDuration, secondsSince, everySecond, errorText, uploadToRoom, stageDeck, roomLinks, shortURL, wireSidePanel, pickFromLibrary, onStageText } from './room-common.js';

hydrateIcons();
wireSidePanel();

const $ = (id) => document.getElementById(id);
const code = cleanCode(decodeURIComponent(location.pathname.split('/')[2] || '')).code;
const stage = $('stage');
const nameInput = $('presenter-name');
const passcodeInput = $('passcode');
const gateError = $('gate-error');
const joinButton = $('join-button');
const storageKey = 'podium.room.' + code;

let info = null;
let user = null;
let live = null;
let joined = false;
let ended = false;
let myId = null;
let connected = new Set();
let interaction = null; // the side panel: polls and the questions of my turns
const pendingUploads = new Map(); // deck id -> title, until it joins the room

document.body.classList.add('viewer-page');

const driver = new StageDriver({
  stage,
  stageWrap: $('stage-wrap'),
  controls: $('controls'),
  thumbs: $('thumbs'),
  inkBar: $('ink-bar'),
  inkKey: code,
  live: () => live,
  state: () => (live && joined ? live.state : null),
  drives: () => drives(),
  send: (command) => send(command),
  sendForResult: (command) => sendForResult(command),
  error: (text) => toast(text, { kind: 'error' }),
});

// ---- the gate ----

async function start() {
  $('gate-code').textContent = code;
  $('audience-link').href = '/s/' + code;
  if (code.length !== CODE_LENGTH) {
    gateFailed('No such room', 'A join code has ' + CODE_LENGTH + ' letters and digits.');
    return;
  }
  try {
    info = await api('/api/v1/sessions/' + encodeURIComponent(code));
  } catch (error) {
    if (error.status === 404) {
      gateFailed('No room with code ' + code, 'Check the link the moderator sent you.');
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
      gateFailed(info.title, 'This is a session with one presenter, not a room.', { href: '/s/' + code, label: 'Watch it' });
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

$('gate-form').addEventListener('submit', (event) => {
  event.preventDefault();
  gateError.textContent = '';
  nameInput.removeAttribute('aria-invalid');
  passcodeInput.removeAttribute('aria-invalid');
  if (!nameInput.value.trim()) {
    gateError.textContent = 'Enter your name: the room sees it while you present.';
    nameInput.setAttribute('aria-invalid', 'true');
    nameInput.focus();
    return;
  }
  if (info && info.hasPasscode && !passcodeInput.value.trim()) {
    gateError.textContent = 'Enter the passcode.';
    passcodeInput.setAttribute('aria-invalid', 'true');
    passcodeInput.focus();
    return;
  }
  join();
});

function join() {
  const name = nameInput.value.trim();
  const passcode = passcodeInput.value.trim();
  joinButton.disabled = true;
  joinButton.textContent = 'Joining…';
  if (live) live.close();
  live = new LiveClient(code, { role: 'presenter', name, passcode: passcode || undefined });
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
  // A wrong passcode may come with a wait: counted down, Join off meanwhile (countdown.js).
  const refusal = passcodeRefusal(errorCode, retryAfter);
  showRetry(gateError, refusal || errorText({ code: errorCode, message }), { wait: refusal ? retryAfter : 0, button: joinButton, label: 'Join as presenter' });
  if (refusal || errorCode === 'passcode_required') {
    $('passcode-field').hidden = false;
    passcodeInput.setAttribute('aria-invalid', 'true');
    passcodeInput.focus();
    passcodeInput.select();
  }
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
    document.title = welcome.session.title + ' — Presenting — Podium';
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
        text: 'Polls are run by whoever has the stage: ask for control to ask, close or reveal one.',
      }));
    }
  }
  document.body.dataset.presenterId = myId || '';
  render();
}

// ---- commands ----

/** Sends a command; a refusal shows as a clear message. Resolves with the ack, or null. */
function send(command) {
  if (!live || ended) return Promise.resolve(null);
  const sent = live.send(command);
  markPending();
  return sent.then((ack) => {
    $('control-error').textContent = '';
    reconcile();
    return ack;
  }, (error) => {
    // Said once, in the control card, which is always on screen.
    $('control-error').textContent = errorText(error);
    reconcile();
    return null;
  });
}

/** Sends an ink command and hands its outcome back (the ink tools keep a stroke until it is answered). */
function sendForResult(command) {
  if (!live || ended) return Promise.reject({ code: 'ended', message: '' });
  const sent = live.send(command);
  markPending();
  sent.then(reconcile, reconcile);
  return sent.catch((error) => Promise.reject({ code: error.code, message: errorText(error) }));
}

function markPending() {
  document.body.dataset.pending = String(live ? live.pendingCount : 0);
}

function reconcile() {
  markPending();
  if (joined) render();
}

function room() {
  return (live && live.state.room) || null;
}

function control() {
  const r = room();
  return (r && r.control) || { presenters: [], queue: [] };
}

function drives() {
  return Boolean(myId) && control().active === myId && !ended;
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
  const label = el('span', { class: 'room-upload-label', text: 'Uploading ' + file.name + '… 0%' });
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
        label.textContent = 'Uploading ' + file.name + '… ' + percent + '%';
      },
    });
    if (!((room() && room().decks) || []).some((d) => d.id === added.deckId)) pendingUploads.set(added.deckId, added.title);
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

$('from-library').addEventListener('click', () => pickFromLibrary({ code, room: room(), asPresenter: true }));

// ---- videos: the room's own clips, shown from here while in control ----

const videos = new RoomVideos({
  card: $('videos-card'), code, mayDrive: () => drives(),
  show: (videoId) => driver.sendVideoCommand({ type: 'showVideo', videoId }),
  onStage: () => (live && live.state.playback ? live.state.playback.video : null),
});

// ---- rendering ----

function onChange(event) {
  if (event.type === 'control' && myId) {
    if (event.active === myId) toast('You have the stage. What you show goes on the projector.', { kind: 'success' });
    else if (event.lender === null && control().active !== myId && wasActive) toast(nowPresenting(room()) + ' has the stage now.');
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
  const r = room();
  if (!r) return;
  const c = control();
  const deck = stageDeck(state);
  const driving = drives();
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
  $('me-line').textContent = 'Presenter · ' + (me ? me.name : nameInput.value.trim());

  // The stage.
  driver.sync(state, live.session);
  stage.style.background = r.background || '#000000';
  $('idle').hidden = Boolean(deck) || ended;
  const hasDeck = (r.decks || []).some((d) => d.owner === myId);
  const waiting = (c.queue || []).includes(myId);
  $('idle-text').textContent = driving
    ? (hasDeck ? 'You have the stage. Choose a deck to show it.' : 'You have the stage. Upload your slides to show them.')
    : waiting ? 'Your request is in. When the moderator hands you the stage, your deck goes on the projector.'
      : hasDeck ? 'Your slides are ready. Ask for control when it is your turn.'
        : 'Upload your slides, then ask for control. When the moderator hands it to you, your deck goes on the projector.';
  $('thumbs').hidden = !deck || !driving;
  $('controls').hidden = !deck || !driving;
  $('stage-label').textContent = driving ? 'You are presenting' : 'On the projector';
  $('onstage-deck').textContent = onStageText(state, deck);

  // Who presents.
  $('now-presenting').textContent = driving ? 'You are presenting' : 'Now presenting: ' + nowPresenting(r);
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
  let title = 'You are not presenting';
  let text = nowPresenting(room()) + ' has the stage. Ask for control when you are ready.';
  if (presenting) {
    state = 'presenting';
    title = 'You are presenting';
    text = borrowed ? presenterName(room(), c.lender) + ' lent you the stage. Return it when you are done.'
      : live.state.playback ? 'Your video is on the projector. Play, pause and seek with its controls; Back to slides shows your deck.'
        : 'Your deck is on the projector. Page with the arrows, the buttons or the thumbnails.';
  } else if (lent) {
    state = 'lent';
    title = 'You lent the stage';
    text = presenterName(room(), c.active) + ' has it for now. Take it back at any time.';
  } else if (position >= 0) {
    state = 'waiting';
    title = position === 0 ? 'You are next' : 'Waiting: #' + (position + 1) + ' in line';
    text = c.moderatorDoNotDisturb ? 'The moderator sees your request soon.' : 'The moderator sees your request.';
  } else if (!c.active && !c.presenters.length) {
    text = 'The moderator has the stage.';
  }
  if (ended) {
    state = 'idle';
    title = 'The room has ended';
    text = 'Thank you.';
  }
  $('control-card').dataset.state = state;
  $('control-card').dataset.position = position >= 0 ? String(position + 1) : '';
  $('control-title').textContent = title;
  $('control-text').textContent = text;
  $('request').hidden = presenting || lent || position >= 0 || ended;
  $('cancel-request').hidden = position < 0 || ended;
  $('return-control').hidden = !(borrowed || lent) || ended;
  $('return-control').querySelector('span:last-child').textContent = lent ? 'Take the stage back' : 'Return control';

  const others = (c.presenters || []).filter((p) => p.id !== myId);
  const canPass = presenting && !borrowed && others.length > 0 && !ended;
  $('pass-field').hidden = !canPass;
  const select = $('pass-to');
  const keep = select.value;
  select.replaceChildren(...others.map((p) => el('option', {
    text: p.name + (connected.has(p.id) ? '' : ' (offline)'), attrs: { value: p.id },
  })));
  if (others.some((p) => p.id === keep)) select.value = keep;

  $('dnd-field').hidden = !presenting || ended;
  $('dnd').checked = Boolean(c.presenterDoNotDisturb);
  $('dnd-hint').textContent = c.presenterDoNotDisturb && queue.length
    ? plural(queue.length, 'request waits', 'requests wait') + ' quietly.'
    : 'Requests from others wait quietly while you present.';
}

function renderMyDecks(r, driving) {
  const mine = (r.decks || []).filter((d) => d.owner === myId);
  $('deck-count').textContent = String(mine.length);
  $('my-decks-empty').hidden = mine.length > 0 || pendingUploads.size > 0;
  const items = mine.map((deck) => {
    const first = deck.pages[0];
    const onStage = deck.id === r.deck;
    return el('li', { class: 'room-item deck-item', data: { deckId: deck.id } }, [
      first ? el('img', { class: 'deck-mini', attrs: { src: first.thumbnailUrl || first.mediumUrl, alt: '', loading: 'lazy' } }) : el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [el('strong', { text: deck.title }), onStage ? el('span', { class: 'badge badge-live', text: 'On stage' }) : null]),
        el('span', { class: 'room-item-meta', text: plural(deck.pages.length, 'slide', 'slides') + (deck.page > 1 && !onStage ? ' · left at slide ' + deck.page : '') }),
      ]),
      driving && !onStage ? el('button', {
        class: 'btn btn-sm', text: 'Show',
        attrs: { type: 'button', 'data-action': 'show-deck', disabled: onStage, title: 'Put this deck on the projector' },
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
      el('span', { class: 'room-item-main' }, [el('strong', { text: title }), el('span', { class: 'room-item-meta', text: 'Preparing the slides…' })]),
    ]));
  }
  $('my-decks').replaceChildren(...items);

  // Deck tabs over the thumbnails while presenting with more than one deck.
  const bar = $('deckbar');
  bar.hidden = !driving || mine.length < 2;
  if (!bar.hidden) {
    bar.replaceChildren(el('span', { class: 'deckbar-label', text: 'Show:' }), ...mine.map((deck) => el('button', {
      class: 'deck-tab', text: deck.title,
      attrs: { type: 'button', 'aria-pressed': String(deck.id === r.deck), 'data-deck-id': deck.id },
      on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
    })));
  }
}

function renderPresenters(r, c) {
  const presenters = c.presenters || [];
  $('presenter-count').textContent = String(presenters.length);
  $('presenters').replaceChildren(...presenters.map((p) => {
    const online = connected.has(p.id);
    const position = (c.queue || []).indexOf(p.id);
    const decks = (r.decks || []).filter((d) => d.owner === p.id).length;
    return el('li', { class: 'room-item presenter-item', data: { presenterId: p.id, connected: String(online) } }, [
      el('span', { class: 'presence-dot' + (online ? ' is-on' : ''), attrs: { title: online ? 'Connected' : 'Not connected' } }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [
          el('strong', { text: p.name + (p.id === myId ? ' (you)' : '') }),
          c.active === p.id ? el('span', { class: 'badge badge-live', text: 'Presenting' }) : null,
          position >= 0 ? el('span', { class: 'badge badge-wait', text: 'Waiting #' + (position + 1) }) : null,
        ]),
        el('span', { class: 'room-item-meta', text: plural(decks, 'deck', 'decks') }),
      ]),
    ]);
  }));
}

function tick() {
  if (!live || !live.session) return;
  const r = room();
  $('now-time').textContent = formatDuration(secondsSince((r && r.controlSince) || live.session.startedAt));
}
everySecond(tick);

function setConnection(state) {
  if (ended) state = 'ended';
  document.body.dataset.connection = state;
  const text = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', ended: 'Ended', failed: 'Not connected' }[state] || state;
  $('connection-text').textContent = text;
  $('connection').className = 'pill ' + ({ live: 'pill-live', reconnecting: 'pill-warn', connecting: 'pill-warn', ended: 'pill-ended', failed: 'pill-ended' }[state] || '');
}

start();
