// The presenter's microphone, recorded for the replay (docs/protocol.md, "Audio recordings").
// Used by the presenter console (/present/{code}) and a room presenter's page (/r/{code}).
//
// A switch in the console bar starts a take: the microphone through MediaRecorder (Opus in WebM,
// a chunk every 2 s), the take created on the server with `startedAt` on the server's clock (the
// live socket's, live/clock.js) so it lines up with the event log, and the `recording` command so
// viewers see the "Recording" badge. Each chunk goes up as it comes, in order, through a queue
// that tries again until the server acknowledges it (a dropped connection holds the queue, it
// does not lose it): a crash or a closed laptop loses at most the chunk or two not yet sent.
// While recording an on-air indicator (red, with the time recorded) sits beside the switch.
//
//   const recorder = mountRecorder({ code, live: () => live, send, bar, before, asPresenter });
//   recorder.stop()                        // e.g. when the session ends

import { api } from '../core/api.js';
import { t, errorText } from '../core/i18n.js';
import { toast, el, icon } from '../core/ui.js';
import { serverClock } from '../live/clock.js';
import { ChunkQueue, elapsedText } from './recorder-queue.js';

export const MIME_TYPE = 'audio/webm;codecs=opus';
export const TIMESLICE = 2000; // ms: a chunk every 2 s
const AUDIO_BITS = 32000; // Opus, voice: 32 kb/s is clear speech

/** Whether this browser can record the microphone (a secure context with MediaRecorder and Opus). */
export function canRecord() {
  return Boolean(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia
    && window.MediaRecorder && MediaRecorder.isTypeSupported(MIME_TYPE));
}

/**
 * The microphone switch and on-air indicator, put into `bar` before `before`. `live()` is the
 * page's LiveClient (for the server's clock), `send` sends a live command.
 */
export function mountRecorder({ code, live, send, bar, before = null, asPresenter = false, onChange = () => {} }) {
  const label = el('span', { class: 'btn-label', text: t('live.recording-start') });
  const micIcon = icon('mic', 18);
  const stopIcon = icon('stop', 18);
  // While on air the switch is its stop icon alone (its name still said to screen readers): the
  // indicator beside it says what is going on, and the console's bar keeps its room.
  const button = el('button', {
    class: 'btn record-switch',
    attrs: { type: 'button', id: 'record-switch', 'aria-pressed': 'false', title: t('live.recording-start-title') },
  }, [micIcon, stopIcon, label]);
  const time = el('span', { class: 'on-air-time', text: '0:00' });
  const indicator = el('span', {
    class: 'on-air', attrs: { id: 'on-air', role: 'status', 'aria-live': 'polite', hidden: true, title: t('live.recording-on-air-title') },
  }, [el('span', { class: 'on-air-dot', attrs: { 'aria-hidden': 'true' } }), el('span', { class: 'on-air-label', text: t('live.recording-on-air') }), time]);
  bar.insertBefore(indicator, before);
  bar.insertBefore(button, before);

  let take = null; // {id, recorder, stream, queue, started (performance.now())}
  let busy = false;
  let ticker = null;
  const query = asPresenter ? '?as=presenter' : '';

  function render() {
    const on = Boolean(take);
    button.setAttribute('aria-pressed', String(on));
    button.classList.toggle('btn-danger', on);
    label.textContent = t('live.recording-start');
    label.style.display = on ? 'none' : '';
    micIcon.style.display = on ? 'none' : '';
    stopIcon.style.display = on ? '' : 'none';
    if (on) button.setAttribute('aria-label', t('live.recording-stop'));
    else button.removeAttribute('aria-label');
    button.title = on ? t('live.recording-stop-title') : t('live.recording-start-title');
    button.disabled = busy;
    indicator.hidden = !on;
    document.body.dataset.recording = on ? 'on' : 'off';
    if (on) time.textContent = elapsedText((performance.now() - take.started) / 1000);
    onChange(on);
  }

  /** The server's time now as a Date (the live socket's estimate; this device's clock before the first pong). */
  function serverNow() {
    const client = live();
    const seconds = client ? serverClock(client).now() : null;
    return new Date(seconds === null ? Date.now() : seconds * 1000);
  }

  async function start() {
    if (!canRecord()) {
      toast(t('live.recording-unsupported'), { kind: 'error', timeout: 8000 });
      return;
    }
    busy = true;
    render();
    let stream = null;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    } catch (error) {
      busy = false;
      render();
      const refused = error && (error.name === 'NotAllowedError' || error.name === 'SecurityError');
      toast(refused ? t('live.recording-mic-refused') : t('live.recording-no-mic'), { kind: 'error', timeout: 10000 });
      return;
    }
    const stopTracks = () => stream.getTracks().forEach((track) => track.stop());
    let recorder;
    try {
      recorder = new MediaRecorder(stream, { mimeType: MIME_TYPE, audioBitsPerSecond: AUDIO_BITS });
    } catch (_) {
      stopTracks();
      busy = false;
      render();
      toast(t('live.recording-unsupported'), { kind: 'error', timeout: 8000 });
      return;
    }
    let created;
    try {
      created = await api('/api/v1/sessions/' + encodeURIComponent(code) + '/recordings' + query, {
        method: 'POST', body: { startedAt: serverNow().toISOString(), mimeType: MIME_TYPE },
      });
    } catch (error) {
      stopTracks();
      busy = false;
      render();
      toast(error.code === 'recording_in_progress' ? t('live.recording-in-progress') : errorText(error), { kind: 'error', timeout: 8000 });
      return;
    }
    const id = created.id;
    const queue = new ChunkQueue(
      (n, blob) => api('/api/v1/recordings/' + encodeURIComponent(id) + '/chunks/' + n + query, { method: 'PUT', body: blob }),
      {
        onFatal: (error) => {
          toast(error.code === 'recording_stopped' ? t('live.recording-stopped-by-server') : t('live.recording-failed', { reason: errorText(error) }), { kind: 'error', timeout: 10000 });
          if (take && take.id === id) finish(false);
        },
      },
    );
    take = { id, recorder, stream, queue, started: performance.now(), stopped: null };
    recorder.addEventListener('dataavailable', (event) => {
      if (event.data && event.data.size > 0) queue.push(event.data);
    });
    recorder.start(TIMESLICE);
    busy = false;
    ticker = setInterval(render, 1000);
    render();
    send({ type: 'recording', on: true });
  }

  /** Stops the microphone; once every chunk is in, the take (packaged by the server). */
  async function finish(tellServer = true) {
    if (!take) return;
    const current = take;
    take = null;
    clearInterval(ticker);
    busy = true;
    render();
    if (current.recorder.state !== 'inactive') {
      const last = new Promise((resolve) => current.recorder.addEventListener('stop', resolve, { once: true }));
      current.recorder.stop();
      await last; // its last dataavailable came before `stop`
    }
    current.stream.getTracks().forEach((track) => track.stop());
    send({ type: 'recording', on: false });
    if (tellServer) {
      await current.queue.drained();
      try {
        await api('/api/v1/recordings/' + encodeURIComponent(current.id) + '/stop' + query, { method: 'POST' });
        toast(t('live.recording-saved'), { kind: 'success' });
      } catch (error) {
        // The server stops a take that sends nothing for 2 minutes itself.
        if (error.status !== 0) toast(errorText(error), { kind: 'error' });
      }
    }
    busy = false;
    render();
  }

  button.addEventListener('click', () => {
    if (busy) return;
    if (take) finish();
    else start();
  });
  window.addEventListener('online', () => take && take.queue.retryNow());
  render();
  return {
    get recording() { return Boolean(take); },
    get takeId() { return take ? take.id : null; },
    stop: () => finish(),
    button,
    indicator,
  };
}

/**
 * The "Recording" badge of a viewer's page (in its bar, before `before`) or a big screen
 * (`floating`: in a corner, over the slide's margin): shown while `state.recording`.
 * `update(state)` after every change of the live state.
 */
export function recordingBadge(parent, { before = null, floating = false } = {}) {
  const badge = el('span', {
    class: 'recording-badge' + (floating ? ' recording-badge-floating' : ''), attrs: { id: 'recording-badge', role: 'status', hidden: true, title: t('live.recording-badge-title') },
  }, [el('span', { class: 'on-air-dot', attrs: { 'aria-hidden': 'true' } }), el('span', { text: t('live.recording-badge') })]);
  parent.insertBefore(badge, before);
  return {
    badge,
    update(state) {
      badge.hidden = !(state && state.recording && !state.ended);
    },
  };
}
