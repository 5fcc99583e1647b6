// The moderator's console of a room: /r/{code}/moderate. Shows what the projector shows, who
// presents and for how long, the queue of requests, the presenters and their decks; hands control
// over, takes it back, blanks the projector, and drives the stage while nobody else does (pages,
// zoom, laser pointer, ink: draw mode from ink.js). This entry module wires the page's parts: its
// lists (moderate-lists.js), its talks (moderate-talks.js), the stage driver and the side panel.

import { api, goToLogin } from '../core/api.js';
import { errorText as sharedErrorText, t } from '../core/i18n.js';
import { LiveClient } from '../live/live.js';
import { consoleDriver } from '../stage/console-driver.js';
import { liveCommands, markPending } from '../live/commands.js';
import { mountPresenterInteraction } from '../interaction/presenter-panel.js';
import { toast, el } from '../core/ui.js';
import { startPage, signedInUser } from '../core/page.js';
import { showQR } from '../core/qr.js';
import { copyText } from '../core/clipboard.js';
import { roomCode, roomLinks, shortURL, presenterName, nowPresenting, everySecond, errorText, uploadToRoom, uploadLine, stageDeck, wireSidePanel, pickFromLibrary, onStageText } from './common.js';
import { roomOf, controlOf, moderatorDrives, watchRoomPresence } from './control.js';
import { moderatorLists } from './moderate-lists.js';
import { moderatorTalks } from './moderate-talks.js';
import { showConnection, showConsoleMessage, wireEndButton, toastOtherRejections, toastRefusal } from '../live/console-bar.js';
import { roomVideos } from './videos.js';
import { mountSaveBanner } from '../live/save-banner.js';
import { mountRecorder } from '../media/recorder.js';

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
const pendingUploads = new Map(); // deck id -> title, until the deck joins the room

// ---- talking to the server ----

// Commands go out through the page's senders (live/commands.js); errors become a toast.
const commands = liveCommands({
  live: () => live, closed: () => ended, reconcile: () => reconcile(), ended: () => showEnded(),
  refused: toastRefusal(errorText), errorText,
});
/** Sends a command; errors become a toast. Resolves with the ack or null. */
const send = (command) => commands.send(command);
// The microphone for the replay (media/recorder.js): the moderator records the room as the console
// does, with the same switch and on-air indicator. Made once the page knows it moderates a room.
let recorder = null;

const driver = consoleDriver({
  commands,
  inkKey: code + '.moderator',
  live: () => live,
  state: () => (live && started ? live.state : null),
  drives: () => moderatorDrives(live, ended),
});

// The page's parts: its lists (moderate-lists.js) and its talks (moderate-talks.js).
const lists = moderatorLists({
  live: () => live, ended: () => ended, connected: () => connected, send, requestedAt, pendingUploads,
});
const talks = moderatorTalks({ live: () => live, ended: () => ended, send, render: () => render() });

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

  lists.render(state, r, c, driving);

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
  talks.render(r, c);
  talks.tick();
}

everySecond(() => talks.tick());

function setConnection(state) {
  showConnection(state, ['connecting', 'live', 'reconnecting', 'ended', 'failed'].includes(state) ? t('rooms.state.' + state) : state);
}

function showEnded() {
  if (ended) return;
  ended = true;
  driver.stop();
  $('ended-overlay').hidden = false;
  $('end-room').disabled = true;
  // No take can start once the room has ended; one under way is stopped (and packaged).
  if (recorder) {
    if (recorder.recording) recorder.stop();
    recorder.button.hidden = true;
  }
  setConnection('ended');
  if (live && started) render();
}

function showMessage(title, text, link) {
  showConsoleMessage($('console-message'), title, text, link);
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
// Who may watch the room's replay (docs/protocol.md, "Replay"): the moderator, or everyone with the link.
$('replay-shared').addEventListener('change', async (event) => {
  const on = event.target.checked;
  try {
    const updated = await api('/api/v1/sessions/' + encodeURIComponent(code), { method: 'PATCH', body: { replay: on ? 'link' : 'host' } });
    event.target.checked = updated.replay === 'link';
    toast(t(on ? 'rooms.replay-shared-on' : 'rooms.replay-shared-off'), { kind: 'success' });
  } catch (error) {
    event.target.checked = !on;
    toast(errorText(error), { kind: 'error' });
  }
});
$('background').addEventListener('input', (event) => { $('background-value').textContent = event.target.value.toUpperCase(); });

$('export').addEventListener('click', (event) => {
  const r = roomOf(live);
  if (r && !(r.shown || []).length) {
    event.preventDefault();
    toast(errorText({ code: 'nothing_shown' }), { kind: 'error' });
  }
});

wireEndButton($('end-room'), {
  code, live: () => live, ended: showEnded, failed: (error) => toast(errorText(error), { kind: 'error' }),
  confirm: { title: t('rooms.end-title'), message: t('rooms.end-message'), confirmLabel: t('rooms.end-room') },
});

// Bring a deck: upload a PDF, or pick one from the library.
$('bring-upload').addEventListener('click', () => $('file-input').click());
$('file-input').addEventListener('change', async (event) => {
  const file = event.target.files && event.target.files[0];
  event.target.value = '';
  if (!file) return;
  const status = $('upload-status');
  const bar = el('span', { class: 'progress-bar' });
  const label = el('span', { class: 'room-upload-label', text: t('rooms.uploading-file', { file: file.name }) });
  status.replaceChildren(label, el('span', { class: 'progress-track' }, [bar]));
  status.hidden = false;
  try {
    const added = await uploadToRoom(code, file, uploadLine(label, bar, file));
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
    $('replay-shared').checked = info.replay === 'link';
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
  recorder = mountRecorder({ code, live: () => live, send, bar: document.querySelector('.console-bar'), before: $('connection') });
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
  watchRoomPresence(live, (ids) => {
    connected = ids;
    if (started) render();
  });
  toastOtherRejections(live, errorText);
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
