// The moderator's console of a room: /r/{code}/moderate. Shows what the projector shows, who
// presents and for how long, the queue of requests, the presenters and their decks; hands control
// over, takes it back, blanks the projector, and drives the stage while nobody else does (pages,
// zoom, laser pointer, ink: draw mode from ink.js).

import { api, goToLogin } from '../core/api.js';
import { errorText as sharedErrorText, formatList, formatNumber, t } from '../core/i18n.js';
import { LiveClient } from '../live/live.js';
import { consoleDriver } from '../stage/console-driver.js';
import { liveCommands, markPending } from '../live/commands.js';
import { mountPresenterInteraction } from '../interaction/presenter-panel.js';
import { toast, confirmDialog, el } from '../core/ui.js';
import { startPage, signedInUser } from '../core/page.js';
import { showQR } from '../core/qr.js';
import { copyText } from '../core/clipboard.js';
import { roomCode, roomLinks, shortURL, presenterName, nowPresenting, formatDuration, countdownText, secondsSince, everySecond, errorText, uploadToRoom, stageDeck, wireSidePanel, pickFromLibrary, onStageText } from './common.js';
import { serverNow, talkClock, talkLength, timeOnStage, parseLength } from './talk.js';
import { roomOf, controlOf, moderatorDrives } from './control.js';
import { roomVideos } from './videos.js';
import { mountSaveBanner } from '../live/save-banner.js';

wireSidePanel();

const code = roomCode();
const $ = (id) => document.getElementById(id);
const stage = $('stage');
let links = null; // the room's links, as the server hands them out (set by setJoinInfo)
let live = null;
let started = false;
let ended = false;
let connected = new Set(); // presenter ids with a socket open
const requestedAt = new Map(); // presenter id -> when their request came (seconds since 1970), when seen
let heldBefore = false; // do-not-disturb was on at the last render
let talkPhase = null; // the phase of the talk on stage at the last tick ({presenter, phase})
const pendingUploads = new Map(); // deck id -> title, until the deck joins the room

// ---- talking to the server ----

// Commands go out through the page's senders (live/commands.js); errors become a toast.
const commands = liveCommands({
  live: () => live,
  closed: () => ended,
  reconcile: () => reconcile(),
  ended: () => showEnded(),
  // `unavailable`: the save banner says it, across the stage, until the server saves again.
  refused: (error) => {
    if (!error || error.code !== 'unavailable') toast(errorText(error), { kind: 'error' });
  },
  errorText,
});
/** Sends a command; errors become a toast. Resolves with the ack or null. */
const send = (command) => commands.send(command);

const driver = consoleDriver({
  commands,
  inkKey: code + '.moderator',
  live: () => live,
  state: () => (live && started ? live.state : null),
  drives: () => moderatorDrives(live, ended),
});

/** Takes the server's state once nothing of ours is in flight. */
function reconcile() {
  markPending(live);
  if (!live || !started) return;
  render();
}

// ---- rendering ----

function render() {
  const state = live.state;
  const r = roomOf(live);
  if (!r) return;
  const c = controlOf(live);
  const deck = stageDeck(state);
  const driving = moderatorDrives(live, ended);
  document.body.dataset.drives = String(driving);
  document.body.dataset.active = c.active || '';

  // The stage: what the projector shows; the console drives it while the moderator has control.
  driver.sync(state, live.session);
  $('follow-lock').checked = state.locked !== false;
  stage.style.background = r.background || '#000000';
  $('idle').hidden = Boolean(deck) || ended;
  // The moderator's own controls only while the moderator drives; otherwise the stage just follows.
  $('thumbs').hidden = !deck || !driving;
  $('controls').hidden = !deck || !driving;

  // Who is on stage.
  $('onstage-name').textContent = c.lender
    ? t('rooms.lent-by', { name: nowPresenting(r), lender: presenterName(r, c.lender) })
    : nowPresenting(r);
  $('onstage-deck').textContent = onStageText(state, deck);
  $('withdraw').hidden = !c.active || ended;

  renderDeckBar(state, driving);
  renderQueue(c);
  renderPresenters(r, c);
  renderDecks(r, driving);

  // The projector.
  for (const button of document.querySelectorAll('#blank-group .seg')) {
    button.setAttribute('aria-pressed', String(button.dataset.blank === (state.blank || 'none')));
    button.disabled = ended;
  }
  const color = $('background');
  if (document.activeElement !== color) color.value = r.background || '#000000';
  $('background-value').textContent = (r.background || '#000000').toUpperCase();
  // The join info on the projector (big-screen.js), on request.
  $('join-info').checked = Boolean(state.joinInfo) && !ended;
  $('join-info').disabled = ended;
  renderTalkSettings(r, c);
  tick();
}

/** The talk-length form (for everyone, or one presenter) and the projector switch. */
function renderTalkSettings(r, c) {
  const select = $('talk-for');
  const keep = select.value;
  const presenters = c.presenters || [];
  // Built again only when the presenters change: a list open under the pointer stays open.
  const names = JSON.stringify(presenters.map((p) => [p.id, p.name]));
  if (select.dataset.names !== names) {
    select.dataset.names = names;
    select.replaceChildren(
      el('option', { text: t('rooms.talk.everyone'), attrs: { value: '' } }),
      ...presenters.map((p) => el('option', { text: p.name, attrs: { value: p.id } })),
    );
    select.value = presenters.some((p) => p.id === keep) ? keep : '';
  }
  fillTalkLength(r);
  $('talk-projector').checked = Boolean(r.talks && r.talks.onProjector);
  for (const id of ['talk-for', 'talk-length', 'talk-length-set', 'talk-projector']) $(id).disabled = ended;
}

/** The length field shows what is set for the chosen presenter (or the default), unless being typed in. */
function fillTalkLength(r) {
  const field = $('talk-length');
  if (document.activeElement === field) return;
  const target = $('talk-for').value;
  const own = target ? ((r.talks && r.talks.lengths) || {})[target] : (r.talks && r.talks.defaultLength);
  field.value = own ? formatDuration(own) : '';
  field.placeholder = target && talkLength(r, null) ? formatDuration(talkLength(r, null)) : t('rooms.talk.length-placeholder');
}

function renderDeckBar(state, driving) {
  const bar = $('deckbar');
  const r = roomOf(live);
  bar.hidden = !driving || !(r.decks || []).length;
  if (bar.hidden) return;
  const buttons = (r.decks || []).map((deck) => el('button', {
    class: 'deck-tab', text: deck.title,
    attrs: { type: 'button', 'aria-pressed': String(deck.id === r.deck), 'data-deck-id': deck.id, title: t('rooms.show-on-stage-named', { title: deck.title }) },
    on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
  }, [el('span', { class: 'deck-tab-owner', text: deck.owner ? presenterName(r, deck.owner) : t('rooms.deck-owner-you') })]));
  bar.replaceChildren(el('span', { class: 'deckbar-label', text: t('rooms.deckbar-show') }), ...buttons);
}

function renderQueue(c) {
  const queue = c.queue || [];
  const held = Boolean(c.moderatorDoNotDisturb);
  $('queue-count').textContent = formatNumber(queue.length);
  $('queue-count').dataset.count = String(queue.length);
  $('hand-over').disabled = !queue.length || ended;
  $('dnd').checked = held;
  $('dnd').disabled = ended;
  const list = $('queue');
  list.hidden = held;
  $('queue-empty').hidden = held || queue.length > 0;
  const heldLine = $('queue-held');
  heldLine.hidden = !held;
  heldLine.textContent = queue.length ? t('rooms.held-waiting', { count: queue.length }) : t('rooms.held-quietly');
  heldLine.dataset.count = String(queue.length);
  if (heldBefore && !held && queue.length) {
    toast(t('rooms.requests-wait-for-control', { count: queue.length }), { kind: 'info' });
  }
  heldBefore = held;
  const capField = $('queue-cap');
  if (document.activeElement !== capField) capField.value = c.queueCap ? String(c.queueCap) : '';
  const r = roomOf(live);
  list.replaceChildren(...queue.map((id, index) => {
    const since = requestedAt.get(id);
    // Lent the stage for a while: still waiting for a turn of their own, and said so.
    const borrowing = c.active === id && c.lender ? presenterName(r, c.lender) : '';
    const waited = el('span', { class: 'room-item-meta', data: { since: since || '', borrowing } });
    return el('li', { class: 'room-item queue-item', data: { presenterId: id } }, [
      el('span', { class: 'queue-pos', text: formatNumber(index + 1) }),
      el('span', { class: 'room-item-main' }, [
        el('strong', { text: presenterName(r, id) }),
        waited,
      ]),
      el('button', {
        class: 'btn btn-sm', text: t('rooms.grant'), attrs: { type: 'button', 'data-action': 'grant', disabled: ended },
        on: { click: () => send({ type: 'grant', presenterId: id }) },
      }),
    ]);
  }));
}

function renderPresenters(r, c) {
  const presenters = c.presenters || [];
  $('presenter-count').textContent = formatNumber(presenters.length);
  $('presenters-empty').hidden = presenters.length > 0;
  $('presenters').replaceChildren(...presenters.map((p) => {
    const decks = (r.decks || []).filter((d) => d.owner === p.id);
    const online = connected.has(p.id);
    const position = (c.queue || []).indexOf(p.id);
    const badges = [];
    if (c.active === p.id) badges.push(el('span', { class: 'badge badge-live', text: t('rooms.presenting') }));
    else if (position >= 0) badges.push(el('span', { class: 'badge badge-wait', text: t('rooms.waiting-position', { position: position + 1 }) }));
    if (c.lender === p.id) badges.push(el('span', { class: 'badge', text: t('rooms.lent-control') }));
    const isActive = c.active === p.id && !c.lender;
    return el('li', { class: 'room-item presenter-item', data: { presenterId: p.id, connected: String(online) } }, [
      el('span', { class: 'presence-dot' + (online ? ' is-on' : ''), attrs: { title: online ? t('rooms.connected') : t('rooms.not-connected'), 'aria-label': online ? t('rooms.connected') : t('rooms.not-connected'), role: 'img' } }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [el('strong', { text: p.name }), ...badges]),
        el('span', { class: 'room-item-meta', text: online
          ? (decks.length ? formatList(decks.map((d) => d.title)) : t('rooms.no-deck-yet'))
          : t('rooms.offline-meta', { decks: decks.length ? formatList(decks.map((d) => d.title)) : t('rooms.no-deck-yet') }) }),
        el('span', { class: 'room-item-meta talk-meta', data: { talkOf: p.id } }),
      ]),
      el('button', {
        class: 'btn btn-sm', text: isActive ? t('rooms.on-stage') : t('rooms.grant'),
        attrs: { type: 'button', 'data-action': 'grant', disabled: isActive || ended, title: t('rooms.grant-title', { name: p.name }) },
        on: { click: () => send({ type: 'grant', presenterId: p.id }) },
      }),
    ]);
  }));
}

function renderDecks(r, driving) {
  const decks = r.decks || [];
  $('deck-count').textContent = formatNumber(decks.length);
  const items = decks.map((deck) => {
    const first = deck.pages[0];
    const onStage = deck.id === r.deck;
    return el('li', { class: 'room-item deck-item', data: { deckId: deck.id } }, [
      first ? el('img', { class: 'deck-mini', attrs: { src: first.thumbnailUrl || first.mediumUrl, alt: '', loading: 'lazy' } }) : el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [
        el('span', { class: 'room-item-title' }, [el('strong', { text: deck.title }), onStage ? el('span', { class: 'badge badge-live', text: t('rooms.on-stage') }) : null]),
        el('span', { class: 'room-item-meta', text: t('rooms.deck-meta', { owner: deck.owner ? presenterName(r, deck.owner) : t('rooms.you'), count: deck.pages.length }) }),
      ]),
      el('button', {
        class: 'btn btn-sm', text: t('rooms.show'),
        attrs: {
          type: 'button', 'data-action': 'show-deck', disabled: !driving || (onStage),
          title: driving ? t('rooms.show-deck-stage') : t('rooms.take-back-to-show-deck'),
        },
        on: { click: () => send({ type: 'showDeck', deckId: deck.id }) },
      }),
    ]);
  });
  for (const [id, title] of pendingUploads) {
    if (decks.some((d) => d.id === id)) {
      pendingUploads.delete(id);
      continue;
    }
    items.push(el('li', { class: 'room-item deck-item is-processing' }, [
      el('span', { class: 'deck-mini' }),
      el('span', { class: 'room-item-main' }, [el('strong', { text: title }), el('span', { class: 'room-item-meta', text: t('rooms.processing') })]),
    ]));
  }
  $('decks').replaceChildren(...items);
}

/** The timers, every second. */
function tick() {
  if (!live || !live.session) return;
  const since = live.session.startedAt;
  $('room-elapsed').textContent = formatDuration(secondsSince(since));
  const r = roomOf(live);
  const now = serverNow(live);
  // The talk on stage: its time adds up across lends and turns (talk.js).
  const clock = r ? talkClock(r, now, { ended }) : null;
  $('onstage-time').textContent = formatDuration(clock ? clock.elapsed : secondsSince((r && r.controlSince) || since));
  const left = $('onstage-left');
  left.hidden = !clock || clock.remaining == null;
  if (!left.hidden) left.textContent = remainingText(clock);
  $('talk-pill').dataset.phase = clock ? clock.phase : 'idle';
  renderTalkNow(r, clock);
  for (const meta of document.querySelectorAll('.queue-item .room-item-meta')) {
    const at = Number(meta.dataset.since);
    meta.textContent = meta.dataset.borrowing
      ? t('rooms.borrowing-still-waiting', { name: meta.dataset.borrowing })
      : at ? t('rooms.waiting-for', { time: formatDuration(secondsSince(at)) }) : t('rooms.waiting');
  }
  for (const meta of document.querySelectorAll('.talk-meta')) {
    const id = meta.dataset.talkOf;
    const used = formatDuration(timeOnStage(r, id, now));
    const length = talkLength(r, id);
    meta.textContent = length ? t('rooms.talk.presenter-time', { used, length: formatDuration(length) }) : t('rooms.talk.presenter-time-open', { used });
  }
}

/** "4:12 left", or "over by 0:12". */
function remainingText(clock) {
  return clock.remaining < 0
    ? t('rooms.talk.over-by', { time: formatDuration(-clock.remaining) })
    : t('rooms.talk.time-left', { time: formatDuration(Math.ceil(clock.remaining)) });
}

/** The talk card's clock: whose talk, how much is left, and the warnings the speaker gets. */
function renderTalkNow(r, clock) {
  const box = $('talk-now');
  box.dataset.phase = clock ? clock.phase : 'idle';
  if (!clock) {
    $('talk-now-time').textContent = '–';
    $('talk-now-text').textContent = ended ? t('rooms.control.ended') : t('rooms.talk.no-talk');
    talkPhase = null;
    return;
  }
  const name = presenterName(r, clock.presenter);
  $('talk-now-time').textContent = clock.remaining == null ? formatDuration(clock.elapsed) : countdownText(clock.remaining);
  $('talk-now-text').textContent = clock.remaining == null
    ? t('rooms.talk.named-open', { name })
    : t('rooms.talk.named-' + clock.phase, { name, length: formatDuration(clock.length) });
  // Over time: said once to the chair, who may have to step in.
  if (clock.phase === 'over' && talkPhase && talkPhase.presenter === clock.presenter && talkPhase.phase !== 'over') {
    toast(t('rooms.talk.chair-over', { name }), { kind: 'info' });
  }
  talkPhase = { presenter: clock.presenter, phase: clock.phase };
}
everySecond(tick);

function setConnection(state) {
  document.body.dataset.connection = state;
  const text = ['connecting', 'live', 'reconnecting', 'ended', 'failed'].includes(state) ? t('rooms.state.' + state) : state;
  $('connection-text').textContent = text;
  $('connection').className = 'pill ' + ({ live: 'pill-live', reconnecting: 'pill-warn', connecting: 'pill-warn', ended: 'pill-ended', failed: 'pill-ended' }[state] || '');
}

function showEnded() {
  if (ended) return;
  ended = true;
  driver.stop();
  $('ended-overlay').hidden = false;
  $('end-room').disabled = true;
  setConnection('ended');
  if (live && started) render();
}

function showMessage(title, text, link) {
  const parts = [el('h2', { text: title }), el('p', { text })];
  if (link) parts.push(el('a', { class: 'btn btn-primary', text: link.label, attrs: { href: link.href } }));
  $('console-message').replaceChildren(el('div', {}, parts));
  $('console-message').hidden = false;
}

/** The join code, the links and the QR code, from the server's links (its public address). */
function setJoinInfo(info) {
  links = roomLinks(info);
  $('join-code').textContent = code;
  for (const [key, id] of [['audience', 'link-audience'], ['presenter', 'link-presenter'], ['projector', 'link-projector']]) {
    const link = $(id);
    link.href = links[key];
    link.textContent = shortURL(links[key]);
  }
  $('open-projector').href = links.projector;
  const report = '/report.html?code=' + encodeURIComponent(code);
  $('report-link').href = report;
  $('ended-report').href = report;
  $('export').href = '/api/v1/sessions/' + encodeURIComponent(code) + '/export.pdf';
  $('export').setAttribute('download', '');
  showQR($('join-qr'), links.audience, 6);
  $('join-qr').dataset.url = links.audience;
}

// ---- wiring ----

for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    if (!links) return;
    const url = links[button.dataset.copy];
    if (await copyText(url)) toast(t('rooms.link-copied'), { kind: 'success' });
    else toast(t('rooms.copy-by-hand', { url }));
  });
}

$('follow-lock').addEventListener('change', (event) => {
  if (!started || ended) {
    event.target.checked = !event.target.checked;
    return;
  }
  send({ type: 'lock', locked: event.target.checked });
});
$('withdraw').addEventListener('click', () => send({ type: 'withdraw' }));
$('talk-for').addEventListener('change', () => { if (roomOf(live)) fillTalkLength(roomOf(live)); });
$('talk-length-set').addEventListener('click', () => {
  const seconds = parseLength($('talk-length').value);
  if (Number.isNaN(seconds)) {
    toast(t('rooms.talk.length-invalid'), { kind: 'error' });
    $('talk-length').setAttribute('aria-invalid', 'true');
    return;
  }
  $('talk-length').removeAttribute('aria-invalid');
  const presenterId = $('talk-for').value || null;
  const name = presenterId ? presenterName(roomOf(live), presenterId) : '';
  send({ type: 'setTalkLength', presenterId, seconds }).then((ack) => {
    if (!ack) return;
    $('talk-length').blur();
    const length = seconds ? formatDuration(seconds) : '';
    const key = presenterId ? (seconds ? 'set-presenter' : 'cleared-presenter') : (seconds ? 'set-default' : 'cleared-default');
    toast(t('rooms.talk.' + key, { name, length }), { kind: 'success' });
    render();
  });
});
$('talk-length').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') $('talk-length-set').click();
});
$('talk-projector').addEventListener('change', (event) => send({ type: 'showTalkTimer', on: event.target.checked }));
$('hand-over').addEventListener('click', () => send({ type: 'handOverNext' }));
$('dnd').addEventListener('change', (event) => send({ type: 'doNotDisturb', on: event.target.checked }));
$('queue-cap-set').addEventListener('click', () => {
  const raw = $('queue-cap').value.trim();
  const cap = raw === '' ? null : Math.floor(Number(raw));
  if (cap !== null && !(cap >= 1)) {
    toast(t('rooms.cap-invalid'), { kind: 'error' });
    return;
  }
  send({ type: 'setQueueCap', cap }).then((ack) => {
    if (ack) toast(cap ? t('rooms.cap-set', { count: cap }) : t('rooms.cap-none'), { kind: 'success' });
  });
});
$('queue-cap').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') $('queue-cap-set').click();
});
for (const button of document.querySelectorAll('#blank-group .seg')) {
  button.addEventListener('click', () => send({ type: 'blank', mode: button.dataset.blank }));
}
$('background').addEventListener('change', (event) => send({ type: 'setBackground', color: event.target.value.toLowerCase() }));
$('join-info').addEventListener('change', (event) => send({ type: 'showJoinInfo', on: event.target.checked }));
$('background').addEventListener('input', (event) => { $('background-value').textContent = event.target.value.toUpperCase(); });

$('export').addEventListener('click', (event) => {
  const r = roomOf(live);
  if (r && !(r.shown || []).length) {
    event.preventDefault();
    toast(errorText({ code: 'nothing_shown' }), { kind: 'error' });
  }
});

$('end-room').addEventListener('click', async () => {
  const ok = await confirmDialog({
    title: t('rooms.end-title'), message: t('rooms.end-message'),
    confirmLabel: t('rooms.end-room'), danger: true,
  });
  if (!ok) return;
  $('end-room').disabled = true;
  try {
    if (live && live.isOpen) await live.send({ type: 'end' });
    else await api('/api/v1/sessions/' + encodeURIComponent(code) + '/end', { method: 'POST' });
    showEnded();
  } catch (error) {
    if (error && error.code === 'ended') {
      showEnded();
      return;
    }
    $('end-room').disabled = false;
    toast(errorText(error), { kind: 'error' });
  }
});

// Bring a deck: upload a PDF, or pick one from the library.
$('bring-upload').addEventListener('click', () => $('file-input').click());
$('file-input').addEventListener('change', async (event) => {
  const file = event.target.files && event.target.files[0];
  event.target.value = '';
  if (!file) return;
  const status = $('upload-status');
  const bar = el('span', { class: 'progress-bar' });
  status.replaceChildren(el('span', { class: 'room-upload-label', text: t('rooms.uploading-file', { file: file.name }) }), el('span', { class: 'progress-track' }, [bar]));
  status.hidden = false;
  try {
    const added = await uploadToRoom(code, file, { onProgress: (f) => { bar.style.width = Math.round(f * 100) + '%'; } });
    if (!(roomOf(live).decks || []).some((d) => d.id === added.deckId)) pendingUploads.set(added.deckId, added.title);
    toast(t('rooms.deck-preparing', { title: added.title }), { kind: 'success' });
  } catch (error) {
    toast(errorText(error), { kind: 'error' });
  } finally {
    status.hidden = true;
    if (started) render();
  }
});

$('bring-library').addEventListener('click', () => pickFromLibrary({ code, room: roomOf(live) }));
$('show-video').addEventListener('click', () => {
  if (moderatorDrives(live, ended)) driver.pickVideo(() => roomVideos(code));
  else toast(t('rooms.take-back-to-show-video'));
});


// ---- start ----

function onEvent(event) {
  if (event.type === 'requested') {
    requestedAt.set(event.presenterId, event.at);
    const c = controlOf(live);
    if (!c.moderatorDoNotDisturb && started) {
      toast(t('rooms.asks-for-control', { name: presenterName(roomOf(live), event.presenterId) }), { kind: 'info', timeout: 3500 });
    }
  } else if (event.type === 'requestCancelled') {
    requestedAt.delete(event.presenterId);
  } else if (event.type === 'ended') {
    showEnded();
  }
}

async function start() {
  if (!code) {
    showMessage(t('rooms.msg.no-room'), t('rooms.msg.no-code'), { href: '/library', label: t('rooms.back-to-the-library') });
    return;
  }
  document.title = t('rooms.moderate-document-title', { title: code });
  if (!(await signedInUser((error) => showMessage(t('rooms.msg.unreachable'), sharedErrorText(error))))) return;
  try {
    const info = await api('/api/v1/sessions/' + encodeURIComponent(code));
    setJoinInfo(info);
    $('room-title').textContent = info.title;
    document.title = t('rooms.moderate-document-title', { title: info.title });
    if (info.kind !== 'room') {
      showMessage(t('rooms.msg.not-a-room'), t('rooms.msg.not-a-room-text', { code }), { href: '/present/' + code, label: t('rooms.msg.open-console') });
      return;
    }
  } catch (error) {
    if (error.status === 404) {
      showMessage(t('rooms.gate.no-room-title', { code }), t('rooms.msg.mistyped'), { href: '/library', label: t('rooms.back-to-the-library') });
      setConnection('failed');
      return;
    }
    toast(errorText(error), { kind: 'error' });
  }

  live = new LiveClient(code, { role: 'moderator' });
  mountSaveBanner(live, $('stage-wrap'));
  // The audience's polls and every question asked in the room, beside the join card.
  mountPresenterInteraction({
    live, code, deckId: null, gotoPage: (page) => driver.goto(page),
    panel: $('side-panel'), controls: $('lock-slot'), lockSwitch: $('follow-lock'),
  });
  driver.listen(live);
  live.addEventListener('status', (event) => {
    if (!ended) setConnection(event.detail.state);
  });
  live.addEventListener('welcome', (event) => {
    const { welcome } = event.detail;
    connected = new Set(welcome.connectedPresenters || []);
    $('room-title').textContent = welcome.session.title;
    started = true;
    $('console-message').hidden = true;
    $('viewer-count').textContent = String(live.viewers);
    if (live.state.ended) showEnded();
    render();
  });
  live.addEventListener('change', (event) => {
    onEvent(event.detail.event);
    reconcile();
  });
  live.addEventListener('sync', reconcile);
  live.addEventListener('presence', (event) => { $('viewer-count').textContent = String(event.detail.viewers); });
  live.addEventListener('message', (event) => {
    if (event.detail.type === 'roomPresence') {
      connected = new Set(event.detail.connected || []);
      if (started) render();
    }
  });
  live.addEventListener('rejected', (event) => {
    if (!event.detail.id && event.detail.message) toast(errorText(event.detail), { kind: 'error' });
  });
  live.addEventListener('fatal', (event) => {
    const { code: errorCode } = event.detail;
    if (errorCode === 'ended') showEnded();
    else if (errorCode === 'unauthorized') goToLogin();
    else if (errorCode === 'not_moderator' || errorCode === 'forbidden') {
      showMessage(t('rooms.msg.not-yours'), t('rooms.msg.not-yours-text', { code }), { href: '/r/' + code, label: t('rooms.msg.join-as-presenter') });
    } else showMessage(t('rooms.msg.cannot-moderate'), errorText(event.detail));
  });
  live.connect();
}

startPage(start);
