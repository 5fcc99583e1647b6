// The presenter's recorded voice in a replay (issue #44): the ready takes (HLS audio, RECORDING's
// `recordings[]` of the timeline) played through Video.js, loaded as video-stage.js loads it, in
// step with the replay: playing while it plays and inside a take, at its speed, where the take
// is at the replay's time (a seek past 0.3 s of drift); quiet outside a take.
//
// State for tests and CSS: #replay-audio[data-take][data-state: idle|loading|playing|paused]
// [data-blocked], and #audio-state (a "Voice" chip while a take plays).

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { loadPlayerLibrary } from '../media/video-stage.js';
import { audioAt } from './replay-client.js';

const DRIFT = 0.3; // seconds of drift that make a seek
const SEEK_GAP = 600; // ms between seeks (one lands before the next is asked)

export class ReplayAudio {
  constructor({ replay, container }) {
    this.replay = replay;
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
    if (!element || element.readyState < 1) return;
    const playing = this.replay.playing;
    const drift = element.currentTime - at.position;
    const now = performance.now();
    if (Math.abs(drift) > (playing ? DRIFT : 0.1) && !element.seeking && now - this.lastSeek > SEEK_GAP) {
      this.lastSeek = now;
      this.player.currentTime(at.position + (playing ? 0.05 * this.replay.speed : 0));
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

  async load(take) {
    this.unload();
    this.take = take;
    this.box.dataset.take = take.id;
    this.setState('loading');
    let videojs;
    try {
      videojs = await loadPlayerLibrary();
    } catch (_) {
      return;
    }
    if (this.take !== take) return;
    const media = el('video', { attrs: { playsinline: true, preload: 'auto', 'data-role': 'replay-voice' } });
    this.box.replaceChildren(media);
    const native = typeof MediaSource === 'undefined' || /Apple/.test(navigator.vendor || '');
    const engine = { overrideNative: !native };
    this.player = videojs(media, {
      controls: false, preload: 'auto', children: ['mediaLoader'],
      html5: { hls: engine, vhs: engine, nativeAudioTracks: native, nativeVideoTracks: native },
    });
    this.player.src({ src: take.playlist, type: 'application/x-mpegURL' });
    this.element = this.box.querySelector('video');
  }

  unload() {
    if (this.player) this.player.dispose();
    this.player = null;
    this.element = null;
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
