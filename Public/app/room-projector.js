// The projector of a room: /r/{code}/projector. Content only: the slide on the stage, best fit
// and centred, margins in the room's background colour; when idle, a big QR code, the join code
// and the audience link. Joins as a viewer (the moderator's own browser needs no passcode).

import { api } from './api.js';
import { t } from './i18n.js';
import { LiveClient } from './live.js';
import './stage.js';
import { cleanCode, toggleFullscreen } from './ui.js';
import { showQR } from './qr.js';
import { followStage, showInking } from './stage-driver.js';
import { stageDeck, shortURL, roomLinks, errorText } from './room-common.js';
import { mountSpotlight } from './spotlight.js';
import { mountVideo } from './video-stage.js';
import { showRetry, passcodeRefusal } from './countdown.js';
import './room-timer-overlay.js'; // the talk's countdown, when the chair shows it

const $ = (id) => document.getElementById(id);
const code = cleanCode(decodeURIComponent(location.pathname.split('/')[2] || '')).code;
const stage = $('stage');
const storageKey = 'podium.projector.' + code;
let live = null;
let joined = false;
let pointer = null;

function show(which) {
  $('gate').hidden = which !== 'gate';
  $('projector').hidden = which !== 'projector';
}

async function start() {
  $('gate-code').textContent = code;
  let info = null;
  try {
    info = await api('/api/v1/sessions/' + encodeURIComponent(code));
  } catch (error) {
    showGate(error.status === 404 ? t('rooms.no-room-with-code', { code }) : errorText(error), false);
    return;
  }
  $('gate-title').textContent = info.title;
  document.title = t('rooms.projector-document-title', { title: info.title });
  setIdle(info);
  // The moderator's own browser needs no passcode: try without one first.
  connect(readPasscode());
}

function readPasscode() {
  try {
    return localStorage.getItem(storageKey) || '';
  } catch (_) {
    return '';
  }
}

function showGate(text, askPasscode = true, wait = 0) {
  show('gate');
  // A wait after wrong passcodes is counted down, the button off meanwhile (countdown.js).
  showRetry($('gate-error'), text || '', { wait, button: $('join-button'), label: t('rooms.show-the-room') });
  $('gate-form').hidden = !askPasscode;
  if (askPasscode) $('passcode').focus();
}

$('gate-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const passcode = $('passcode').value.trim();
  if (!passcode) {
    $('gate-error').textContent = t('rooms.enter-the-passcode');
    return;
  }
  connect(passcode);
});

function connect(passcode) {
  if (live) live.close();
  live = new LiveClient(code, { role: 'viewer', name: 'Projector', passcode: passcode || undefined, projector: true });
  live.addEventListener('welcome', () => {
    if (!joined) {
      joined = true;
      try {
        if (passcode) localStorage.setItem(storageKey, passcode);
      } catch (_) {
        // storage may be off
      }
      show('projector');
    }
    render();
  });
  live.addEventListener('change', (event) => {
    const type = event.detail.event.type;
    if (type === 'page' || type === 'deckShown' || type === 'ended') pointer = null;
    // The stage changed hands or decks: a stroke in progress there ends with it.
    if (type === 'control' || type === 'deckShown') showInking(stage, null, live.state);
    render();
  });
  live.addEventListener('sync', () => render());
  live.addEventListener('status', (event) => setStatus(event.detail.state));
  live.addEventListener('pointer', (event) => {
    const m = event.detail;
    pointer = m.visible === false || !Number.isFinite(m.x) ? null : { page: m.page, x: m.x, y: m.y };
    renderPointer();
  });
  live.addEventListener('inking', (event) => showInking(stage, event.detail, live.state));
  mountVideo({ live, container: $('projector'), role: 'projector', lead: true });
  mountSpotlight({ live, container: $('projector') });
  live.addEventListener('fatal', (event) => {
    const { code: errorCode, message, retryAfter = 0 } = event.detail;
    try {
      localStorage.removeItem(storageKey);
    } catch (_) {
      // storage may be off
    }
    if (joined) {
      setStatus('failed');
      return;
    }
    if (errorCode === 'passcode_required') showGate(t('rooms.projector-passcode'));
    else if (errorCode === 'passcode_wrong' || errorCode === 'rate_limited') showGate(passcodeRefusal(errorCode, retryAfter), true, retryAfter);
    else showGate(errorText({ code: errorCode, message }), false);
  });
  live.connect();
}

/** The idle screen: how to join, with the server's audience link (its public address). */
function setIdle(info) {
  const audience = roomLinks(info).audience;
  let host = audience;
  try {
    host = new URL(audience).host;
  } catch (_) {
    // keep the whole link
  }
  $('idle-title').textContent = info.title || '';
  $('idle-host').textContent = host;
  $('idle-code').textContent = code;
  $('idle-qr').alt = t('rooms.qr-of', { url: shortURL(audience) });
  showQR($('idle-qr'), audience, 12);
  $('idle-qr').dataset.url = audience;
}

function render() {
  if (!live || !joined) return;
  const state = live.state;
  const room = state.room || {};
  followStage(stage, live.session, state);
  // The margins around a slide of another shape: the room's colour.
  stage.style.background = room.background || '#000000';
  document.body.style.background = room.background || '#000000';
  const deck = stageDeck(state);
  $('idle').hidden = Boolean(deck) || state.ended;
  $('ended').hidden = !state.ended;
  document.body.dataset.idle = String(!deck);
  if (live.session && $('idle-title').textContent !== live.session.title) $('idle-title').textContent = live.session.title;
  renderPointer();
}

function renderPointer() {
  const visible = pointer && (pointer.page === undefined || pointer.page === live.state.page) && !live.state.ended;
  stage.setPointer(visible ? pointer : null);
}

function setStatus(state) {
  document.body.dataset.connection = state;
  const status = $('status');
  const text = ['reconnecting', 'connecting', 'failed'].includes(state) ? t('rooms.connection.' + state) : '';
  status.hidden = !text || !joined;
  status.textContent = text || '';
}

stage.addEventListener('dblclick', () => toggleFullscreen());
document.addEventListener('keydown', (event) => {
  if (event.target instanceof HTMLInputElement) return;
  if (event.key === 'f' || event.key === 'F') toggleFullscreen();
});

start();
