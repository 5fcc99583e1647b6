// The big screen: content only, for the projector. One module for a room's projector
// (/r/{code}/projector, rooms/projector.js) and a session's screen (/s/{code}/screen,
// sessions/screen.js); each entry page only says what differs.
//
// The slide on the stage, best fit and centred; the pointer and ink as they move; a video played
// (the screen a video waits for, when it is the host's own browser); the spotlight full screen
// with nothing on top (no poll card, no viewer toolbar). While idle, or while the host shows the
// join info (`joinInfo` in the state, the console's J), a big QR code, the join code and the
// audience link.
//
// It joins as a viewer with `projector: true`: no name, no "Join", and not counted as a viewer
// (docs/protocol.md). The host's own browser needs no passcode; anyone else types it once and the
// screen remembers it.
//
//   mountBigScreen({ code, storageKey, texts, audience(info), isIdle(live), background(state), onInfo(info) })
//
// It plays a video's sound. In the browser it was opened from (the console's "Big screen", the
// same laptop), it says so on a BroadcastChannel (`podium.screen.{code}`: screen-open,
// screen-closed, answering `who`), so the console goes quiet meanwhile: one sound, no echo.
//
// State for tests and CSS: <body data-idle> (true while the join info shows), <body data-connection>,
// #idle[data-requested] (shown because the host asked).

import { t } from '../core/i18n.js';
import { api } from '../core/api.js';
import { LiveClient } from '../live/live.js';
import './stage.js';
import { toggleFullscreen } from '../core/ui.js';
import { showQR } from '../core/qr.js';
import { followStage, showInking } from './driver.js';
import { mountSpotlight } from '../interaction/spotlight.js';
import { mountVideo } from '../media/video-stage.js';
import { recordingBadge } from '../media/recorder.js';
import { showRetry, passcodeRefusal } from '../live/passcode-wait.js';

const $ = (id) => document.getElementById(id);

/**
 * @param {object} options
 * @param {string} options.code the join code
 * @param {string} options.storageKey where a typed passcode is remembered
 * @param {{gateButton: string, passcodePrompt: string, notFound: string, documentTitle: (title: string) => string, errorText: (error: object) => string}} options.texts
 * @param {(info: object) => string} options.audience the audience's link, from the session's REST info
 * @param {(live: LiveClient) => boolean} options.isIdle whether nothing is shown yet (the join info then)
 * @param {(state: object) => string} [options.background] the colour around a slide
 * @param {(info: object) => boolean} [options.onInfo] sees the REST info first; false stops here
 */
export function mountBigScreen(options) {
  const { code, storageKey, texts, audience, isIdle, background = () => '#000000', onInfo = () => true } = options;
  const stage = $('stage');
  let live = null;
  let joined = false;
  let pointer = null;
  // "Recording" in a corner while the presenter records their voice for the replay.
  const recordingShown = recordingBadge($('projector'), { floating: true });

  function show(which) {
    $('gate').hidden = which !== 'gate';
    $('projector').hidden = which !== 'projector';
  }

  // The console in this browser hears that a screen of its session is open (and plays no sound).
  let channel = null;
  try {
    channel = new BroadcastChannel('podium.screen.' + code);
  } catch (_) {
    // no BroadcastChannel: the console keeps its sound
  }
  const say = (type) => {
    if (channel) channel.postMessage({ type });
  };
  if (channel) {
    channel.onmessage = (event) => {
      if (joined && event.data && event.data.type === 'who') say('screen-open');
    };
  }
  addEventListener('pagehide', () => say('screen-closed'));

  async function start() {
    $('gate-code').textContent = code;
    let info = null;
    try {
      info = await api('/api/v1/sessions/' + encodeURIComponent(code));
    } catch (error) {
      showGate(error.status === 404 ? texts.notFound : texts.errorText(error), false);
      return;
    }
    if (onInfo(info) === false) return;
    $('gate-title').textContent = info.title;
    document.title = texts.documentTitle(info.title);
    setIdle(info);
    // The host's own browser needs no passcode: try without one first.
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
    // A wait after wrong passcodes is counted down, the button off meanwhile (live/passcode-wait.js).
    showRetry($('gate-error'), text || '', { wait, button: $('join-button'), label: texts.gateButton });
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
    live = new LiveClient(code, { role: 'viewer', passcode: passcode || undefined, projector: true });
    live.addEventListener('welcome', () => {
      if (!joined) {
        joined = true;
        try {
          if (passcode) localStorage.setItem(storageKey, passcode);
        } catch (_) {
          // storage may be off
        }
        show('projector');
        say('screen-open');
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
      if (errorCode === 'passcode_required') showGate(texts.passcodePrompt);
      else if (errorCode === 'passcode_wrong' || errorCode === 'rate_limited') showGate(passcodeRefusal(errorCode, retryAfter), true, retryAfter);
      else showGate(texts.errorText({ code: errorCode, message }), false);
    });
    live.connect();
  }

  /** The join screen: how to join, with the server's audience link (its public address). */
  function setIdle(info) {
    const link = audience(info);
    let host = link;
    try {
      host = new URL(link).host;
    } catch (_) {
      // keep the whole link
    }
    $('idle-title').textContent = info.title || '';
    $('idle-host').textContent = host;
    $('idle-code').textContent = code;
    $('idle-qr').alt = t('rooms.qr-of', { url: link.replace(/^https?:\/\//, '') });
    showQR($('idle-qr'), link, 12);
    $('idle-qr').dataset.url = link;
  }

  function render() {
    if (!live || !joined) return;
    const state = live.state;
    followStage(stage, live.session, state);
    // The margins around a slide of another shape.
    const colour = background(state);
    stage.style.background = colour;
    document.body.style.background = colour;
    const requested = Boolean(state.joinInfo) && !state.ended;
    const idle = requested || (isIdle(live) && !state.ended);
    $('idle').hidden = !idle;
    $('idle').dataset.requested = String(requested);
    $('ended').hidden = !state.ended;
    document.body.dataset.idle = String(idle);
    recordingShown.update(state);
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
}
