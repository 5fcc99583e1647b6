// The presenter console: /present/{code}. Drives a live session over the socket as presenter
// (authenticated by the HttpOnly cookie), shows the join code and QR code, the viewer count.

import { t, errorText, formatNumber } from '../core/i18n.js';
import { api, goToLogin } from '../core/api.js';
import { LiveClient } from '../live/live.js';
import { consoleDriver } from '../stage/console-driver.js';
import { liveCommands, markPending } from '../live/commands.js';
import { toast } from '../core/ui.js';
import { startPage, addressPart, signedInUser } from '../core/page.js';
import { showQR } from '../core/qr.js';
import { copyText } from '../core/clipboard.js';
import { mountPresenterInteraction } from '../interaction/presenter-panel.js';
import { mountPasscodeControl } from './passcode-control.js';
import { mountHostsControl } from './hosts-control.js';
import { mountBigScreenButton } from './big-screen-button.js';
import { PresenterView } from './presenter-view.js';
import { mountSaveBanner } from '../live/save-banner.js';
import { showConnection, showConsoleMessage, wireEndButton, toastOtherRejections, toastRefusal } from '../live/console-bar.js';
import { mountRecorder } from '../media/recorder.js';

const code = addressPart().toUpperCase();
const $ = (id) => document.getElementById(id);
const stage = $('stage');
const message = $('console-message');
let live = null;
let ended = false;
let started = false;
let recorder = null;

// Commands go out through the page's senders (live/commands.js); the stage driver uses them too.
const commands = liveCommands({
  live: () => live, closed: () => ended, reconcile: () => reconcile(), ended: () => showEnded(),
  refused: toastRefusal(errorText, { wordless: false }),
});
const send = (command) => commands.send(command);

const driver = consoleDriver({
  commands,
  inkKey: code,
  live: () => live,
  state: () => (live && started ? live.state : null),
  drives: () => started && !ended,
  onChange: () => updateSide(),
  videos: true,
  lead: true,
});
const deckConsole = driver.console;
// The presenter view: clocks, the next slide and the speaker notes beside the stage.
const presenterView = new PresenterView({
  code, live: () => live, deckConsole, stage, thumbs: $('thumbs'),
  body: document.querySelector('.console-body'), bar: document.querySelector('.console-bar'), before: $('connection'),
});

/** Takes the server's state once nothing of ours is in flight. */
function reconcile() {
  markPending(live);
  if (!live || !started) return;
  driver.sync(live.state, live.session);
  if (live.pendingCount === 0 && !deckConsole.busy) $('follow-lock').checked = live.state.locked !== false;
  if (live.state.ended) showEnded();
}

function showMessage(title, text, link) {
  showConsoleMessage(message, title, text, link);
  // The console can do nothing more: its side panel (on a phone the whole screen) would hide why.
  toggleJoinPanel(false);
}

function showEnded() {
  if (ended) return;
  ended = true;
  driver.stop();
  if (recorder) {
    recorder.stop();
    // No take can start after the end: the switch leaves the bar (a German bar at 1280 px had no
    // room for it beside "Sitzung beenden").
    recorder.button.hidden = true;
  }
  $('ended-overlay').hidden = false;
  // Ended from elsewhere (a co-host, the library) while the side panel is open: on a phone the
  // panel is the whole screen and would hide the notice and its report link.
  toggleJoinPanel(false);
  $('end-session').disabled = true;
  $('follow-lock').disabled = true;
  setConnection('ended');
}

function setConnection(state) {
  const text = { connecting: t('live.status-connecting'), live: t('live.status-live'), reconnecting: t('live.status-reconnecting'), ended: t('live.connection-ended'), failed: t('live.connection-failed') }[state] || state;
  showConnection(state, text);
}

function setViewers(n) {
  $('viewer-count').textContent = formatNumber(n);
  $('viewer-count-big').textContent = formatNumber(n);
  $('viewer-pill').title = t('live.viewers-connected', { count: n });
}

function updateSide() {
  presenterView.update();
  const count = deckConsole.pageCount;
  const page = deckConsole.page;
  $('page-big').textContent = count ? formatNumber(page) + '/' + formatNumber(count) : '–';
  const next = deckConsole.pages && deckConsole.pages[page];
  const preview = $('next-preview');
  if (next) {
    $('next-img').src = next.mediumUrl || next.thumbnailUrl;
    $('next-label').textContent = t('live.next-label', { page: page + 1, count });
    preview.hidden = false;
  } else if (count) {
    $('next-img').removeAttribute('src');
    $('next-label').textContent = t('live.last-slide');
    preview.hidden = false;
  } else {
    preview.hidden = true;
  }
}

/** The join code, link and QR code; the link as the server hands it out (its public address). */
function setJoinInfo(joinUrl) {
  $('join-code').textContent = code;
  $('code-chip').textContent = code;
  $('join-screen-code').textContent = code;
  $('export-ink').href = '/api/v1/sessions/' + encodeURIComponent(code) + '/export.pdf';
  const report = '/report.html?code=' + encodeURIComponent(code);
  $('report-link').href = report;
  $('ended-report').href = report;
  if (!joinUrl) return; // the server did not answer: the code alone, no link of our own making
  const url = joinUrl;
  let host = url;
  try {
    host = new URL(url).host;
  } catch (_) {
    // keep the whole text
  }
  $('join-screen-host').textContent = host;
  const link = $('join-url');
  link.textContent = url.replace(/^https?:\/\//, '');
  link.href = url;
  showQR($('join-qr'), url, 8);
  showQR($('join-screen-qr'), url, 12);
  $('copy-link').dataset.url = url;
  $('join-qr').dataset.url = url;
}

// ---- UI wiring ----

$('follow-lock').addEventListener('change', (event) => {
  if (!started || ended) {
    event.target.checked = !event.target.checked;
    return;
  }
  send({ type: 'lock', locked: event.target.checked });
});

$('copy-link').addEventListener('click', async (event) => {
  const url = event.currentTarget.dataset.url;
  if (!url) return;
  if (await copyText(url)) toast(t('live.link-copied'), { kind: 'success' });
  else toast(t('live.copy-by-hand', { url }));
});

// "Big screen" opens the session's screen for the projector; "Present join info" (J) shows the
// join code there and over this stage (big-screen-button.js).
const bigScreen = mountBigScreenButton({ code, button: $('big-screen'), presentJoin: $('present-join'), joinScreen: $('join-screen'), send });

function toggleJoinPanel(show = !document.body.classList.contains('show-join')) {
  document.body.classList.toggle('show-join', show);
  $('code-chip').setAttribute('aria-expanded', String(show));
}
$('code-chip').addEventListener('click', () => toggleJoinPanel());
$('close-join').addEventListener('click', () => toggleJoinPanel(false));

wireEndButton($('end-session'), {
  code, live: () => live, ended: showEnded,
  failed: (error) => toast(error && (error.code || error.message) ? errorText(error) : t('live.could-not-end'), { kind: 'error' }),
  confirm: { title: t('live.end-title'), message: t('live.end-message'), confirmLabel: t('live.end-session') },
});

// ---- start ----

async function start() {
  if (!code) {
    showMessage(t('live.no-session'), t('live.no-join-code'), { href: '/library', label: t('live.back-to-library') });
    return;
  }
  document.title = t('live.console-title', { code });
  const me = await signedInUser((error) => showMessage(t('live.cannot-reach'), errorText(error)));
  if (!me) return;
  let info = null;
  try {
    info = await api('/api/v1/sessions/' + encodeURIComponent(code));
  } catch (error) {
    if (error.status === 404) {
      showMessage(t('live.no-session-code', { code }), t('live.mistyped-or-deleted'), { href: '/library', label: t('live.back-to-library') });
      setConnection('failed');
      return;
    }
    toast(errorText(error), { kind: 'error' });
  }
  if (info) {
    $('deck-title').textContent = info.title;
    setJoinInfo(info.joinUrl);
    const access = mountPasscodeControl({ panel: $('join-panel'), after: document.querySelector('#join-panel .join-url'), code, info });
    // Who runs the session with me: read after the console is up, never holding it back.
    mountHostsControl({ panel: $('join-panel'), after: access, code, me, onLeft: () => location.assign('/library') });
    // An Office deck's speaker notes and slide titles, for this console only: in the presenter
    // view, which comes on by itself for a deck with notes.
    presenterView.load(info.deckId);
  } else {
    setJoinInfo(null);
  }

  live = new LiveClient(code, { role: 'presenter' });
  mountSaveBanner(live, $('stage-wrap'));
  // The microphone for the replay: a switch and an on-air indicator in the bar (media/recorder.js).
  recorder = mountRecorder({ code, live: () => live, send, bar: document.querySelector('.console-bar'), before: $('big-screen') });
  mountPresenterInteraction({
    live, code, deckId: info && info.deckId, gotoPage: (page) => deckConsole.goto(page),
    panel: $('join-panel'), controls: $('controls'), lockSwitch: $('follow-lock'),
  });
  driver.listen(live);
  bigScreen.attach(live, info);
  live.addEventListener('status', (event) => {
    if (!ended) setConnection(event.detail.state);
  });
  live.addEventListener('welcome', (event) => {
    const { welcome } = event.detail;
    if (!started) {
      started = true;
      $('deck-title').textContent = welcome.session.title;
      $('console-subtitle').textContent = t('live.console-subtitle', { name: welcome.session.presenter, count: welcome.session.pageCount });
      message.hidden = true;
    }
    setViewers(live.viewers);
    reconcile();
  });
  live.addEventListener('change', reconcile);
  live.addEventListener('sync', reconcile);
  live.addEventListener('presence', (event) => setViewers(event.detail.viewers));
  // The server echoes our own `inking` to us too: the stroke is already drawn here as it moves.
  // Command errors are reported where they were sent; others (pointer) only here.
  toastOtherRejections(live, errorText);
  live.addEventListener('fatal', (event) => {
    const { code: errorCode, message: text } = event.detail;
    if (errorCode === 'ended') {
      showEnded();
    } else if (errorCode === 'unauthorized') {
      goToLogin();
    } else if (errorCode === 'forbidden') {
      showMessage(t('live.not-your-session'), t('live.not-your-session-text', { code }), { href: '/s/' + code, label: t('live.watch-instead') });
    } else if (errorCode === 'not_found') {
      showMessage(t('live.no-session-code', { code }), text ? errorText(event.detail) : t('live.mistyped'), { href: '/library', label: t('live.back-to-library') });
    } else {
      showMessage(t('live.cannot-present'), text ? errorText(event.detail) : errorCode);
    }
  });
  live.connect();
}

startPage(start);
