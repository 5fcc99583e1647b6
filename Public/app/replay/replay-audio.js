// The presenter's recorded voice in a replay (issue #44): the ready takes (HLS audio, RECORDING's
// `recordings[]` of the timeline) played in step with the replay: playing while it plays and
// inside a take, at its speed, where the take is at the replay's time (a seek past 0.3 s of
// drift); quiet outside a take.
//
// A take's `playlistUrl` is its master playlist: one audio-only variant with its CODECS
// (mp4a.40.2), so Video.js's HLS engine knows there is no video and feeds the browser's Media
// Source Extensions the audio alone; Safari plays HLS itself. A replay shared with the link of a
// session with a passcode sends it (X-Podium-Passcode) with every request for a take's files, as
// the timeline's: through the engine's request hook (Safari then goes through the engine too,
// its own player sends no header).
//
// State for tests and CSS: #replay-audio[data-take][data-state: idle|loading|playing|paused]
// [data-blocked], and #audio-state (a "Voice" chip while a take plays).

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { loadPlayerLibrary } from '../media/video-stage.js';
import { audioAt, withPasscode } from './replay-client.js';

const DRIFT = 0.3; // seconds of drift that make a seek
const SEEK_GAP = 600; // ms between seeks (one lands before the next is asked)

// The passcode the page was let in with: sent with each request of the HLS engine for a take's files.
let takePasscode = '';
let hooked = false;

/** Adds the passcode to the HLS engine's requests for takes' files (once; other hooks kept). */
export function hookTakeRequests(videojs) {
  const engine = videojs && (videojs.Vhs || videojs.Hls);
  if (hooked || !engine || !engine.xhr) return;
  hooked = true;
  const before = engine.xhr.beforeRequest;
  engine.xhr.beforeRequest = (options) => {
    const given = typeof before === 'function' ? before(options) || options : options;
    return withPasscode(given, takePasscode, location.href);
  };
}

export class ReplayAudio {
  /** `passcode`: the one the replay was opened with (a replay shared with the link), or ''. */
  constructor({ replay, container, passcode = '' }) {
    this.replay = replay;
    takePasscode = passcode;
    this.box = el('div', { class: 'replay-audio-box', attrs: { id: 'replay-audio', 'aria-hidden': 'true' } });
    this.box.dataset.state = 'idle';
    container.append(this.box);
    this.take = null;
    this.player = null;
    this.element = null;
    this.lastSeek = 0;
    this.chip = document.getElementById('audio-state');
  }

  /** Called every frame: the take of the replay's time, at its position, playing or not. */
  update() {
    const at = audioAt(this.replay.takes, this.replay.time);
    if (!at) {
      if (this.element && !this.element.paused) this.element.pause();
      this.setState(this.take ? 'paused' : 'idle');
      this.renderChip(false);
      return;
    }
    if (!this.take || this.take.id !== at.take.id) this.load(at.take);
    const element = this.element;
    if (!element || element.readyState < 1 || !this.ready) return;
    const playing = this.replay.playing;
    const drift = element.currentTime - at.position;
    const now = performance.now();
    if (Math.abs(drift) > (playing ? DRIFT : 0.1) && !element.seeking && now - this.lastSeek > SEEK_GAP) {
      this.lastSeek = now;
      this.seekTo(at.position + (playing ? 0.05 * this.replay.speed : 0));
    }
    if (playing) {
      if (element.playbackRate !== this.replay.speed) element.playbackRate = this.replay.speed;
      if (element.paused && !this.starting) {
        this.starting = element.play().then(
          () => this.setBlocked(false),
          (error) => this.setBlocked(Boolean(error && error.name === 'NotAllowedError')),
        ).finally(() => (this.starting = null));
      }
      this.setState('playing');
    } else {
      if (!element.paused) element.pause();
      this.setState('paused');
    }
    this.renderChip(playing);
  }

  /** Through Video.js when it plays the take (its engine resets its loaders on a seek it is told of). */
  seekTo(position) {
    if (this.player) this.player.currentTime(position);
    else if (this.element) this.element.currentTime = position;
  }

  async load(take) {
    this.unload();
    this.take = take;
    this.box.dataset.take = take.id;
    this.setState('loading');
    const media = el('video', { attrs: { playsinline: true, preload: 'auto', 'data-role': 'replay-voice' } });
    // Safari's own HLS where it cannot be avoided (no Media Source Extensions) or need not be
    // (no passcode to send).
    const native = typeof MediaSource === 'undefined' || (/Apple/.test(navigator.vendor || '') && !takePasscode);
    if (native) {
      this.box.replaceChildren(media);
      this.element = media;
      this.ready = true;
      media.src = take.playlist;
      return;
    }
    let videojs;
    try {
      videojs = await loadPlayerLibrary();
    } catch (_) {
      this.setState('failed');
      return;
    }
    if (this.take !== take) return;
    hookTakeRequests(videojs);
    this.box.replaceChildren(media);
    const engine = { overrideNative: true };
    this.player = videojs(media, {
      controls: false, preload: 'auto', children: ['mediaLoader'],
      html5: { hls: engine, vhs: engine, nativeAudioTracks: false, nativeVideoTracks: false },
    });
    this.player.src({ src: take.playlist, type: 'application/x-mpegURL' });
    this.element = this.box.querySelector('video');
    this.ready = true;
  }

  unload() {
    if (this.player) this.player.dispose();
    else if (this.element) {
      this.element.pause();
      this.element.removeAttribute('src');
      this.element.load();
    }
    this.player = null;
    this.element = null;
    this.ready = false;
    this.take = null;
    this.box.replaceChildren();
    delete this.box.dataset.take;
  }

  setState(state) {
    if (this.box.dataset.state !== state) this.box.dataset.state = state;
  }

  setBlocked(blocked) {
    this.box.dataset.blocked = String(blocked);
  }

  renderChip(on) {
    if (!this.chip) return;
    this.chip.hidden = !on;
    if (on && !this.chip.textContent) this.chip.textContent = t('replay.voice');
  }
}
