// The presenter's recorded voice in a replay (issue #44): the ready takes (HLS audio, RECORDING's
// `recordings[]` of the timeline) played in step with the replay: playing while it plays and
// inside a take, at its speed, where the take is at the replay's time (a seek past 0.3 s of
// drift); quiet outside a take.
//
// A take's playlist is a media playlist of AAC in fMP4 (#EXT-X-MAP) without a master, so without
// CODECS: Video.js's HLS engine then assumes video and audio and the browser refuses the
// audio-only stream. Such a take is fed to Media Source Extensions here (its init segment and
// segments, in order: a voice is small, 14 MB an hour at 32 kb/s); Safari plays HLS itself, and
// any other playlist (MPEG-TS segments) goes through Video.js as video-stage.js loads it.
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
    const native = typeof MediaSource === 'undefined' || /Apple/.test(navigator.vendor || '');
    if (native) {
      this.box.replaceChildren(media);
      this.element = media;
      this.ready = true;
      media.src = take.playlist;
      return;
    }
    let playlist = null;
    try {
      const response = await fetch(take.playlist, { credentials: 'same-origin' });
      if (response.ok) playlist = await response.text();
    } catch (_) {
      // said below: quiet
    }
    if (this.take !== take) return;
    if (playlist && /#EXT-X-MAP/.test(playlist)) {
      this.box.replaceChildren(media);
      this.element = media;
      this.feed(take, media, playlist).catch(() => this.setState('failed'));
      return;
    }
    this.loadPlayer(take, media);
  }

  /** The take's fMP4 audio through Media Source Extensions: the init segment, then every segment. */
  async feed(take, media, playlist) {
    const base = new URL(take.playlist, location.href);
    const lines = playlist.split(/\r?\n/).map((line) => line.trim());
    const map = lines.map((line) => /^#EXT-X-MAP:.*URI="([^"]+)"/.exec(line)).find(Boolean);
    const urls = [map ? map[1] : null, ...lines.filter((line) => line && !line.startsWith('#'))].filter(Boolean).map((url) => new URL(url, base).href);
    const codecs = (/CODECS="([^"]+)"/.exec(playlist) || [])[1] || 'mp4a.40.2';
    const source = new MediaSource();
    media.src = URL.createObjectURL(source);
    await new Promise((resolve) => source.addEventListener('sourceopen', resolve, { once: true }));
    const buffer = source.addSourceBuffer(`audio/mp4; codecs="${codecs}"`);
    this.ready = true; // seeks may go as soon as there is metadata
    for (const url of urls) {
      const response = await fetch(url, { credentials: 'same-origin' });
      if (!response.ok) throw new Error('segment ' + response.status);
      const data = await response.arrayBuffer();
      if (this.take !== take) return;
      buffer.appendBuffer(data);
      await new Promise((resolve, reject) => {
        buffer.addEventListener('updateend', resolve, { once: true });
        buffer.addEventListener('error', reject, { once: true });
      });
    }
    if (this.take === take && source.readyState === 'open') source.endOfStream();
  }

  async loadPlayer(take, media) {
    let videojs;
    try {
      videojs = await loadPlayerLibrary();
    } catch (_) {
      return;
    }
    if (this.take !== take) return;
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
      if (this.element.src.startsWith('blob:')) URL.revokeObjectURL(this.element.src);
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
