// The video on the stage (docs/protocol.md, "Video on the stage"), over the slide on every screen:
// the presenter's console (with a media player's controls), a room's projector (with the sound)
// and every viewer (muted unless they choose to listen). Each screen follows the one playback
// reference with its own estimate of the server's clock (clock.js, video-sync.js); none waits for
// another, except that the lead screen (`lead`: the console of a plain session, a room's
// projector) pauses everyone while it buffers and starts everyone together again once it can play.
//
//   mountVideo({ live, container, role: 'presenter'|'projector'|'viewer', send, lead, clock })
//
// `clock` (a replay, replay/replay-client.js): read instead of the server's clock (clock.js); its
// `speed` is the replay's (0 while paused), so the clip follows the replay's play, pause and speed.
//
// HLS plays through Video.js and its HLS engine (served at /vendor/videojs/, installed by the
// set-up from PyPI); Safari plays HLS itself.
//
// State for tests and CSS: #video-screen[data-video][data-state][data-sound: on|off]
// [data-blocked] (hidden when no video); [data-role=video-play][aria-pressed],
// [data-role=video-seek], [data-role=video-time], [data-role=video-rate], [data-role=video-sound],
// [data-role=video-tap]. The screen element has sample(): {actual, target, now, drift} for the
// sync benchmark.

import { t, formatNumber, errorText } from '../core/i18n.js';
import { el, icon, toggleFullscreen, isTyping, dialogOpen } from '../core/ui.js';
import { serverClock } from '../live/clock.js';
import { renewalDelay } from './stream-renewal.js';
import { CaptionLayer } from './captions.js';
import { referencePosition, shouldPlay, correction, learnSeekDelay, clipRange } from './video-sync.js';

const VIDEOJS = '/vendor/videojs/7.5.5/';
const TICK = 100; // ms between corrections
const RATES = [0.5, 0.75, 1, 1.25, 1.5, 2];
const STALL_LIMIT = 700; // ms the lead screen may buffer before it pauses everyone
const SEEK_GIVE_UP = 3000; // ms after which a seek that has not landed is tried again
const START_SETTLE = 1000; // ms a started clip may stay on its first frame before that counts as drift
const screens = new WeakMap();
let playerLibrary = null;

/** Loads Video.js once (its stylesheet too; its own injected styles are off: our CSP forbids them). */
export function loadPlayerLibrary() {
  if (!playerLibrary) {
    playerLibrary = new Promise((resolve, reject) => {
      window.VIDEOJS_NO_DYNAMIC_STYLE = true;
      document.head.append(el('link', { attrs: { rel: 'stylesheet', href: VIDEOJS + 'video-js.min.css' } }));
      const script = el('script', { attrs: { src: VIDEOJS + 'video.min.js' } });
      script.addEventListener('load', () => resolve(window.videojs));
      script.addEventListener('error', () => reject(new Error(t('video.player-failed'))));
      document.head.append(script);
    });
  }
  return playerLibrary;
}

function ensureStyles() {
  if (document.querySelector('link[href="/app/media/video.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/media/video.css' } }));
}

/** "1:05" (or "1:02:05"). */
export function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** Puts the video screen over `container`, following `live`. Returns the screen. */
export function mountVideo({ live, container, role = 'viewer', send = null, lead = false, mayDrive = () => true, clock = null }) {
  let screen = screens.get(container);
  if (!screen) {
    screen = new VideoScreen(container, { role, send, lead, mayDrive, clock });
    screens.set(container, screen);
  }
  if (live) screen.attach(live);
  return screen;
}

export class VideoScreen {
  constructor(container, { role, send, lead, mayDrive = () => true, clock = null }) {
    ensureStyles();
    this.givenClock = clock; // a replay's clock, else the server's (attach)
    this.container = container;
    this.role = role;
    this.send = send; // (command) => Promise, on a page that may drive
    this.mayDrive = mayDrive; // whether it drives now (a room's stage changes hands)
    this.lead = lead;
    this.live = null;
    this.clock = null;
    this.playback = null;
    this.media = null; // the media loaded now (its playlist URL)
    this.player = null;
    this.loading = null;
    this.seeking = null; // {started} while a correction's seek is in flight
    this.seekDelay = null;
    this.stalledSince = null;
    this.autoPaused = false;
    this.blocked = false;
    // Sound: the console of a plain session and the projector play it; a room's presenter and
    // the audience follow muted until they choose to listen.
    this.wantsSound = role === 'projector' || (role === 'presenter' && lead);
    this.frame = el('div', { class: 'video-frame' });
    this.card = el('div', { class: 'video-card', attrs: { hidden: true } });
    this.notice = el('p', { class: 'video-notice', attrs: { role: 'status', 'aria-live': 'polite', hidden: true } });
    this.tap = el('button', {
      class: 'btn btn-primary btn-lg video-tap', text: t('video.tap-to-play'),
      attrs: { type: 'button', 'data-role': 'video-tap', hidden: true },
      on: { click: () => this.userStart() },
    });
    this.soundButton = el('button', {
      class: 'btn video-sound', attrs: { type: 'button', 'data-role': 'video-sound' },
      on: { click: () => this.setSound(!this.wantsSound) },
    });
    // Quality: automatic (the HLS engine picks by bandwidth), or one rendition on this screen only.
    this.quality = el('select', {
      class: 'input video-quality', attrs: { 'aria-label': t('video.quality-label'), title: t('video.quality'), 'data-role': 'video-quality', hidden: true },
    });
    this.quality.addEventListener('change', () => this.chooseQuality(this.quality.value));
    // Captions (captions.js): the cue at the synced position, large on the big screen.
    this.captions = new CaptionLayer({ container: this.frame, large: role === 'projector' });
    // A big screen has no one to click a picker: its captions follow the remembered choice (or
    // the page's language) and its quality is the HLS engine's; only the sound button stays.
    const pickers = role === 'projector' ? [] : [this.captions.picker, this.quality];
    const corner = el('div', { class: 'video-corner' }, [...pickers, this.soundButton]);
    const parts = [this.frame, this.card, this.notice, this.tap, corner];
    if (send) {
      parts.push(this.buildControls());
      parts.push(this.offButton);
    }
    this.screen = el('section', {
      class: 'video-screen', attrs: { id: 'video-screen', role: 'region', 'aria-label': t('video.video') },
    }, parts);
    this.screen.hidden = true;
    this.screen.sample = () => this.sample();
    container.append(this.screen);
    this.renderSound();
    this.timer = null;
    if (send) this.bindKeys();
  }

  attach(live) {
    if (this.live === live) return;
    this.live = live;
    this.clock = this.givenClock || serverClock(live);
    const mine = (handler) => () => { if (this.live === live) handler(); };
    live.addEventListener('welcome', mine(() => this.update()));
    live.addEventListener('change', mine(() => this.update()));
    live.addEventListener('sync', mine(() => this.update()));
    this.clock.addEventListener('ready', mine(() => this.tick()));
    this.update();
  }

  /** The reference changed (or may have): show, load, hide. */
  update() {
    const state = (this.live && this.live.state) || {};
    const playback = state.playback && !state.ended ? state.playback : null;
    if (this.send && playback && playback.state !== 'paused') this.autoPaused = false;
    this.playback = playback;
    this.screen.hidden = !playback;
    document.body.dataset.video = playback ? playback.state : 'none';
    this.clock && this.clock.stayFresh(Boolean(playback));
    if (!playback) {
      this.unload();
      return;
    }
    this.screen.dataset.video = playback.video;
    this.screen.dataset.state = playback.state;
    const media = playback.media || null;
    if (!media) {
      this.say(t('video.cannot-play-here'));
      return;
    }
    const audioOnly = media.audioOnly;
    this.card.hidden = !audioOnly;
    if (audioOnly) this.renderCard(media);
    if (!this.media || this.media.playlist !== media.playlist) this.load(media);
    this.keepFresh(media);
    if (this.controls) {
      this.controls.hidden = !this.mayDrive();
      this.offButton.hidden = !this.mayDrive();
      this.renderControls();
    }
    this.tick();
    if (!this.timer) this.timer = setInterval(() => this.tick(), TICK);
  }

  renderCard(media) {
    const parts = [icon('volume', 48), el('p', { class: 'video-card-title', text: media.title })];
    this.card.replaceChildren(...parts);
  }

  async load(media) {
    this.unload();
    this.media = media;
    this.say(t('video.loading'));
    const loading = (this.loading = loadPlayerLibrary());
    let videojs;
    try {
      videojs = await loading;
    } catch (error) {
      this.say(errorText(error));
      return;
    }
    if (this.loading !== loading || this.media !== media) return; // replaced meanwhile
    const video = el('video', {
      class: 'video-js', attrs: { playsinline: true, preload: 'auto', 'aria-label': media.title, poster: media.poster || null },
    });
    video.muted = !this.wantsSound;
    this.frame.replaceChildren(video, this.captions.overlay);
    // Safari (and iOS) play HLS themselves; elsewhere Video.js's engine feeds Media Source
    // Extensions, also where the browser says it "maybe" plays HLS (recent Chromium): one engine
    // everywhere, with its renditions to choose from. (Video.js 7's engine reads `hls` options.)
    const native = typeof MediaSource === 'undefined' || /Apple/.test(navigator.vendor || '');
    const engine = { overrideNative: !native };
    this.player = videojs(video, {
      controls: false, preload: 'auto', fill: true, children: ['mediaLoader'],
      html5: { hls: engine, vhs: engine, nativeAudioTracks: native, nativeVideoTracks: native },
    });
    this.player.src({ src: media.playlist, type: 'application/x-mpegURL' });
    const element = this.element();
    this.captions.attach(element, media.playlist);
    element.addEventListener('seeked', () => this.onSeeked());
    element.addEventListener('waiting', () => this.onWaiting());
    element.addEventListener('playing', () => this.onPlaying());
    element.addEventListener('canplay', () => this.onPlaying());
    element.addEventListener('error', () => this.onError(media));
    this.player.on('error', () => this.onError(media));
    element.addEventListener('loadedmetadata', () => {
      this.say(null);
      this.renderQuality();
      this.tick();
    });
  }

  /**
   * The clip's stream URL expires (media.expiresAt, server time): the screen that drives shows the
   * clip again a little before, which gives every screen fresh media where the clip is. A screen
   * that does not drive now looks again later (a room's stage changes hands).
   */
  keepFresh(media) {
    if (this.freshFor === media) return;
    clearTimeout(this.renewTimer);
    this.freshFor = media;
    if (!this.send || typeof media.expiresAt !== 'number') return;
    const now = (this.clock && this.clock.now()) || Date.now() / 1000;
    const renew = () => {
      if (this.freshFor !== media || !this.playback) return;
      if (!this.mayDrive()) {
        this.renewTimer = setTimeout(renew, 5000);
        return;
      }
      this.command({ type: 'showVideo', videoId: this.playback.video });
    };
    this.renewTimer = setTimeout(renew, renewalDelay((media.expiresAt - now) * 1000));
  }

  /**
   * The clip could not be played. Its playlist is a capability URL that expires (410
   * stream_expired, docs/protocol.md): the screen that drives puts the clip on the stage again,
   * which gives every screen a fresh URL where the clip is; the others say so and wait for it.
   */
  async onError(media) {
    if (this.media !== media || this.failedFor === media) return;
    this.failedFor = media;
    let expired = false;
    try {
      expired = (await fetch(media.playlist, { method: 'HEAD', cache: 'no-store' })).status === 410;
    } catch (_) {
      // offline: said as a failure below
    }
    if (this.media !== media) return;
    if (!expired) {
      this.say(t('video.failed'));
    } else if (this.send && this.mayDrive() && this.playback) {
      this.say(t('video.renewing'));
      this.command({ type: 'showVideo', videoId: this.playback.video });
    } else {
      this.say(t('video.link-expired'));
    }
  }

  /** The renditions the HLS engine may choose from (none where the browser plays HLS itself). */
  representations() {
    try {
      const tech = this.player && this.player.tech({ IWillNotUseThisInPlugins: true });
      const engine = tech && (tech.vhs || tech.hls);
      return engine && typeof engine.representations === 'function' ? engine.representations().filter((r) => r.height) : [];
    } catch (_) {
      return [];
    }
  }

  renderQuality() {
    const heights = [...new Set(this.representations().map((r) => r.height))].sort((a, b) => b - a);
    this.quality.hidden = heights.length < 2;
    this.quality.replaceChildren(
      el('option', { text: t('video.auto'), attrs: { value: 'auto' } }),
      ...heights.map((height) => el('option', { text: height + 'p', attrs: { value: String(height) } })),
    );
    this.quality.value = 'auto';
  }

  /** Plays one rendition on this screen (its height), or lets the engine choose again ('auto'). */
  chooseQuality(value) {
    const height = value === 'auto' ? null : Number(value);
    for (const representation of this.representations()) representation.enabled(height === null || representation.height === height);
  }

  unload() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    clearTimeout(this.renewTimer);
    this.freshFor = null;
    clearTimeout(this.startTimer);
    clearTimeout(this.endTimer);
    clearTimeout(this.stallTimer);
    this.captions.detach();
    if (this.player) this.player.dispose();
    this.player = null;
    this.media = null;
    this.loading = null;
    this.seeking = null;
    this.stalledSince = null;
    this.frame.replaceChildren();
    this.say(null);
  }

  /** The <video> itself (Video.js keeps it inside its wrapper). */
  element() {
    return this.frame.querySelector('video');
  }

  say(text) {
    this.notice.hidden = !text;
    this.notice.textContent = text || '';
  }

  /** Where the clip is, should be, and how far apart (seconds), for the benchmark and tests. */
  sample() {
    const element = this.element();
    const now = this.clock ? this.clock.now() : null;
    if (!element || !this.playback || now === null) return null;
    const target = referencePosition(this.playback, now);
    return { actual: element.currentTime, target, now, drift: element.currentTime - target, state: this.playback.state };
  }

  /** One correction: pause, play, nudge or seek towards where the reference says the clip is. */
  tick() {
    const playback = this.playback;
    const element = this.element();
    if (!playback || !element || !this.clock || element.readyState < 1) return;
    const now = this.clock.now();
    if (now === null) return; // no pong yet: it comes within a round trip
    // A replay's clock runs at the replay's speed (0: paused); the server's at 1.
    const speed = typeof this.clock.speed === 'number' ? this.clock.speed : 1;
    const rate = playback.rate * (speed || 1);
    const target = referencePosition(playback, now);
    if (this.controls) this.renderTime(target);
    this.captions.render();
    // A seek's delay is not drift: measure again once it has landed (or, if it never does, try again).
    if (this.seeking && performance.now() - this.seeking.started < SEEK_GIVE_UP) return;
    // A seek of ours that never landed: the element may still say `seeking` at the very position
    // asked for (a big screen opened on a paused clip showed its first frame for good, the caption
    // of the right cue over it), so a position check alone would never try again.
    const stuck = this.seeking !== null && element.seeking;
    this.seeking = null;
    // A start takes a moment before the clip moves (the first one most): not drift either.
    if (this.starting || (this.startedAt && performance.now() - this.startedAt < START_SETTLE && !element.paused && element.currentTime === this.startedFrom)) return;
    if (!shouldPlay(playback, now) || speed === 0) {
      if (!element.paused) element.pause();
      element.playbackRate = playback.rate;
      if (stuck || Math.abs(element.currentTime - target) > 0.05) this.seek(target);
      // A play anchored ahead: start at its moment, not at the next tick.
      if (playback.state === 'playing' && now < playback.anchor && speed > 0) {
        clearTimeout(this.startTimer);
        this.startTimer = setTimeout(() => this.tick(), Math.max(0, ((playback.anchor - now) * 1000) / speed));
      }
      return;
    }
    if (element.paused) {
      if (stuck || Math.abs(element.currentTime - target) > 0.2) this.seek(target + (this.seekDelay || 0.1) * rate);
      element.playbackRate = rate;
      // A browser that refused to play waits for the tap ("Tap to play along"), not for a retry.
      if (!this.blocked) this.start(element);
      return;
    }
    // The trim's end (or a loop's wrap) falls before the next tick: correct at that moment, so the
    // clip never plays on past it.
    const { upper } = clipRange(playback);
    if (upper !== null && upper > target && (upper - target) / rate < TICK / 1000) {
      clearTimeout(this.endTimer);
      this.endTimer = setTimeout(() => this.tick(), ((upper - target) / rate) * 1000 + 5);
    }
    // Buffering: a seek now would only buffer again, unless the clip is far behind.
    const drift = element.currentTime - target;
    if (element.readyState < 3 && drift > -3) return;
    const fix = correction(drift, rate);
    if (fix.action === 'seek') this.seek(target + (this.seekDelay || 0.1) * rate);
    else element.playbackRate = fix.rate;
  }

  seek(position) {
    // Inside the clip's trim (its whole length when untrimmed).
    const { lower, upper } = this.playback ? clipRange(this.playback) : { lower: 0, upper: null };
    this.seeking = { started: performance.now() };
    // Through the player: its HLS engine resets its segment loaders on a seek it is told of. Set on
    // the <video> alone, a seek back into what it had dropped waited for ever.
    this.player.currentTime(Math.max(lower, Math.min(upper ?? Infinity, position)));
  }

  onSeeked() {
    if (!this.seeking) return;
    const took = (performance.now() - this.seeking.started) / 1000;
    this.seeking = null;
    if (this.playback && this.playback.state === 'playing') this.seekDelay = learnSeekDelay(this.seekDelay, took);
    this.tick();
  }

  /** Plays; a browser that blocks sound starts muted (and says so), one that blocks all asks for a tap. */
  start(element) {
    if (this.starting) return;
    this.startedAt = performance.now();
    this.startedFrom = element.currentTime;
    this.starting = element.play().then(
      () => this.setBlocked(false),
      (error) => {
        if (error && error.name === 'NotAllowedError' && !element.muted) {
          element.muted = true;
          this.renderSound();
          return element.play().then(() => this.setBlocked(false), () => this.setBlocked(true));
        }
        if (error && error.name === 'NotAllowedError') this.setBlocked(true);
        return undefined;
      },
    ).finally(() => {
      this.starting = null;
    });
  }

  setBlocked(blocked) {
    this.blocked = blocked;
    this.tap.hidden = !blocked;
    this.screen.dataset.blocked = String(blocked);
  }

  /** A tap: a user gesture, which lets the browser play (with sound when wanted). */
  userStart() {
    const element = this.element();
    if (!element) return;
    element.muted = !this.wantsSound;
    this.setBlocked(false);
    element.play().catch(() => this.setBlocked(true));
    this.renderSound();
    this.tick();
  }

  setSound(on) {
    this.wantsSound = on;
    const element = this.element();
    if (element) {
      element.muted = !on;
      // Unmuting is a user gesture: a start the browser held back can go now.
      if (on && element.paused && this.playback && this.clock && shouldPlay(this.playback, this.clock.now() ?? 0)) {
        this.userStart();
      }
    }
    this.renderSound();
  }

  renderSound() {
    const element = this.element();
    const on = element ? !element.muted : this.wantsSound;
    this.screen.dataset.sound = on ? 'on' : 'off';
    const label = on ? t('video.sound-on-label') : this.role === 'projector' ? t('video.muted-projector-label') : t('video.muted-label');
    // A browser that blocked the sound (no click on the page yet) needs one: on the projector, say so plainly.
    const text = on ? t('video.sound-on') : this.role === 'projector' ? t('video.sound-off-projector') : t('video.listen-here');
    this.soundButton.replaceChildren(icon(on ? 'volume' : 'mute', 18), el('span', { class: 'btn-label', text }));
    this.soundButton.setAttribute('aria-label', label);
    this.soundButton.title = label;
    this.soundButton.setAttribute('aria-pressed', String(on));
  }

  // ---- the lead screen: everyone waits while it buffers

  // The console of a plain session pauses and plays itself; a room's projector cannot drive, so it
  // tells the server, which pauses and plays for it (docs/protocol.md, "How the browser client follows").

  onWaiting() {
    if (!this.lead || !this.playback || this.playback.state !== 'playing') return;
    this.stalledSince = performance.now();
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => {
      const element = this.element();
      if (this.stalledSince === null || !element || element.readyState >= 3) return;
      if (!this.playback || this.playback.state !== 'playing') return;
      this.autoPaused = true;
      if (this.send) this.command({ type: 'playback', action: 'pause' });
      else this.live.sendEphemeral({ type: 'buffering', buffering: true });
    }, STALL_LIMIT);
  }

  onPlaying() {
    this.stalledSince = null;
    clearTimeout(this.stallTimer);
    const element = this.element();
    if (!this.autoPaused || !element || element.readyState < 3) return;
    this.autoPaused = false;
    if (!this.send) this.live.sendEphemeral({ type: 'buffering', buffering: false });
    else if (this.playback && this.playback.state === 'paused') this.command({ type: 'playback', action: 'play' });
  }

  // ---- the presenter's controls

  command(message) {
    if (!this.send || !this.mayDrive()) return Promise.resolve();
    return Promise.resolve(this.send(message)).catch(() => {});
  }

  buildControls() {
    const button = (name, label, role, on) => el('button', {
      class: 'btn btn-icon', attrs: { type: 'button', 'aria-label': label, title: label, 'data-role': role }, on: { click: on },
    }, [icon(name, 20)]);
    this.playButton = button('play', t('video.play'), 'video-play', () => this.togglePlay());
    const back = button('back10', t('video.back10'), 'video-back', () => this.skip(-10));
    const forward = button('forward10', t('video.forward10'), 'video-forward', () => this.skip(10));
    const stop = button('stop', t('video.stop'), 'video-stop', () => this.command({ type: 'playback', action: 'stop' }));
    this.seekBar = el('input', {
      class: 'video-seek', attrs: { type: 'range', min: 0, max: 1, step: 0.1, value: 0, 'aria-label': t('video.position'), 'data-role': 'video-seek' },
    });
    // The bar spans the clip's trim (start..end, seconds of the clip itself, which is what a seek
    // sends); the times it shows count from the trim's start, as PowerPoint and Keynote show a
    // trimmed video: a shorter clip, 0:00 to its trimmed length (renderTime, previewAt).
    this.seekBar.addEventListener('input', () => this.previewAt(Number(this.seekBar.value)));
    this.seekBar.addEventListener('change', () => {
      this.scrubbing = false;
      this.preview.hidden = true;
      this.command({ type: 'playback', action: 'seek', position: Number(this.seekBar.value) });
    });
    this.seekBar.addEventListener('pointerdown', () => (this.scrubbing = true));
    this.seekBar.addEventListener('pointermove', (event) => this.hoverAt(event));
    this.seekBar.addEventListener('pointerleave', () => { if (!this.scrubbing) this.preview.hidden = true; });
    this.preview = el('div', { class: 'video-preview', attrs: { hidden: true, 'aria-hidden': 'true' } }, [
      el('div', { class: 'video-preview-image' }), el('span', { class: 'video-preview-time' }),
    ]);
    this.timeText = el('span', { class: 'video-time', attrs: { 'data-role': 'video-time' } });
    this.rateSelect = el('select', { class: 'input video-rate', attrs: { 'aria-label': t('video.speed'), title: t('video.speed'), 'data-role': 'video-rate' } });
    for (const rate of RATES) this.rateSelect.append(el('option', { text: rate === 1 ? t('video.normal') : formatNumber(rate) + '×', attrs: { value: rate } }));
    this.rateSelect.addEventListener('change', () => this.command({ type: 'playback', action: 'rate', rate: Number(this.rateSelect.value) }));
    this.volume = el('input', {
      class: 'video-volume', attrs: { type: 'range', min: 0, max: 1, step: 0.05, value: 1, 'aria-label': t('video.volume') },
    });
    this.volume.addEventListener('input', () => {
      const element = this.element();
      if (element) element.volume = Number(this.volume.value);
      if (Number(this.volume.value) > 0 && !this.wantsSound) this.setSound(true);
    });
    const full = button('fullscreen', t('common.full-screen-key'), 'video-fullscreen', () => toggleFullscreen(this.container));
    // Top left of the picture, like a player's close: the control bar stays one row.
    this.offButton = el('button', {
      // Named by aria-label too: on a narrow screen only its arrow shows (video.css).
      class: 'btn video-off', attrs: { type: 'button', 'data-role': 'video-off', title: t('video.off-title'), 'aria-label': t('video.back-to-slides') },
      on: { click: () => this.command({ type: 'hideVideo' }) },
    }, [icon('arrow-left', 18), el('span', { class: 'btn-label', text: t('video.back-to-slides') })]);
    this.controls = el('div', { class: 'video-controls', attrs: { role: 'toolbar', 'aria-label': t('video.controls') } }, [
      el('div', { class: 'video-seek-row' }, [this.seekBar, this.preview]),
      el('div', { class: 'video-buttons' }, [this.playButton, back, forward, stop, this.timeText, el('span', { class: 'video-gap' }), this.rateSelect, this.volume, full]),
    ]);
    return this.controls;
  }

  togglePlay() {
    const playing = this.playback && this.playback.state === 'playing';
    return this.command({ type: 'playback', action: playing ? 'pause' : 'play' });
  }

  skip(seconds) {
    if (!this.playback || !this.clock) return;
    const now = this.clock.now() ?? 0;
    const { lower, upper } = clipRange(this.playback);
    let position = referencePosition(this.playback, now) + seconds;
    position = Math.max(lower, upper !== null ? Math.min(upper, position) : position);
    this.command({ type: 'playback', action: 'seek', position: Math.round(position * 1000) / 1000 });
  }

  renderControls() {
    const playback = this.playback;
    const playing = playback.state === 'playing';
    this.playButton.replaceChildren(icon(playing ? 'pause' : 'play', 20));
    this.playButton.setAttribute('aria-pressed', String(playing));
    const label = playing ? t('video.pause') : t('video.play');
    this.playButton.setAttribute('aria-label', label);
    this.playButton.title = label;
    const { lower, upper } = clipRange(playback);
    this.seekBar.min = String(lower);
    this.seekBar.max = String(upper !== null ? upper : lower);
    this.rateSelect.value = String(playback.rate);
    if (this.media && this.media.thumbnails && this.thumbnailsFor !== this.media.thumbnails) this.loadThumbnails(this.media.thumbnails);
  }

  renderTime(position) {
    const { lower, upper } = this.playback ? clipRange(this.playback) : { lower: 0, upper: null };
    const text = clockText(position - lower) + (upper !== null ? ' / ' + clockText(upper - lower) : '');
    if (this.timeText.textContent !== text) this.timeText.textContent = text;
    if (!this.scrubbing) this.seekBar.value = String(position);
    this.seekBar.setAttribute('aria-valuetext', text);
  }

  /** The thumbnail strip's cues (WebVTT: a time span → sprite.jpg#xywh=x,y,w,h). */
  async loadThumbnails(url) {
    this.thumbnailsFor = url;
    this.thumbnails = [];
    try {
      const response = await fetch(url);
      if (!response.ok) return;
      this.thumbnails = parseThumbnailTrack(await response.text(), url);
    } catch (_) {
      // no thumbnails: the scrub bar still works
    }
  }

  hoverAt(event) {
    const box = this.seekBar.getBoundingClientRect();
    const fraction = Math.max(0, Math.min(1, (event.clientX - box.left) / Math.max(1, box.width)));
    const lower = Number(this.seekBar.min);
    this.previewAt(lower + fraction * (Number(this.seekBar.max) - lower), fraction);
  }

  /** The preview over the bar at `seconds` of the clip: its thumbnail, and its time from the trim's start. */
  previewAt(seconds, fraction = (seconds - Number(this.seekBar.min)) / Math.max(0.001, Number(this.seekBar.max) - Number(this.seekBar.min))) {
    const cue = (this.thumbnails || []).find((c) => seconds >= c.start && seconds < c.end);
    const image = this.preview.firstChild;
    image.hidden = !cue;
    if (cue) {
      image.style.backgroundImage = `url("${cue.image}")`;
      image.style.backgroundPosition = `-${cue.x}px -${cue.y}px`;
      image.style.width = cue.w + 'px';
      image.style.height = cue.h + 'px';
    }
    this.preview.lastChild.textContent = clockText(seconds - Number(this.seekBar.min));
    this.preview.style.left = (fraction * 100).toFixed(2) + '%';
    this.preview.hidden = false;
  }

  bindKeys() {
    // Caught first (the window, capturing): while a video is on the stage, these keys are the
    // player's, not the slides' (stage/driver.js leaves ← and → alone then).
    window.addEventListener('keydown', (event) => {
      if (this.screen.hidden || !this.send || !this.mayDrive() || isTyping(event) || dialogOpen()) return;
      if (event.altKey || event.metaKey || event.ctrlKey) return;
      const target = event.target;
      if (target instanceof HTMLInputElement && target.type === 'range') return;
      const actions = {
        ' ': () => this.togglePlay(), k: () => this.togglePlay(), K: () => this.togglePlay(),
        ArrowLeft: () => this.skip(-10), ArrowRight: () => this.skip(10),
        Home: () => this.command({ type: 'playback', action: 'seek', position: clipRange(this.playback).lower }),
        m: () => this.setSound(!this.wantsSound), M: () => this.setSound(!this.wantsSound),
      };
      const action = actions[event.key];
      // Space on one of the player's own buttons presses that button.
      if (!action || (event.key === ' ' && target instanceof HTMLButtonElement && this.controls.contains(target))) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      if (event.key === ' ') this.swallowSpaceUp = true;
      action();
    }, true);
    // A focused button (the "Show a video" just used) is pressed by Space's keyup: not this time.
    window.addEventListener('keyup', (event) => {
      if (event.key !== ' ' || !this.swallowSpaceUp) return;
      this.swallowSpaceUp = false;
      event.preventDefault();
      event.stopImmediatePropagation();
    }, true);
  }
}

/** Cues of a thumbnail track: [{start, end, image, x, y, w, h}], image URLs resolved against `base`. */
export function parseThumbnailTrack(text, base) {
  const seconds = (stamp) => stamp.split(':').reduce((total, part) => total * 60 + Number(part), 0);
  const cues = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const times = lines[i].match(/^([\d:.]+)\s+-->\s+([\d:.]+)/);
    if (!times || !lines[i + 1]) continue;
    const target = lines[i + 1].trim();
    const at = target.match(/^(.*)#xywh=(\d+),(\d+),(\d+),(\d+)$/);
    if (!at) continue;
    cues.push({
      start: seconds(times[1]), end: seconds(times[2]), image: new URL(at[1], new URL(base, location.href)).href,
      x: Number(at[2]), y: Number(at[3]), w: Number(at[4]), h: Number(at[5]),
    });
  }
  return cues;
}
