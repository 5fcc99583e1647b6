// Captions on every player (issue #41): a clip's caption tracks are subtitle renditions of its
// HLS master playlist (#EXT-X-MEDIA:TYPE=SUBTITLES, docs/operations.md), each a media playlist of
// one WebVTT file. This module reads them from the master playlist, adds the chosen one to the
// <video> as a hidden TextTrack (so the browser keeps its activeCues at the playing position, the
// synced one on a stage) and draws the active cues in an overlay of our own, sized by CSS: large
// on a big screen. A picker (CC) chooses the language or none; the choice is remembered.
//
//   const layer = new CaptionLayer({ container, large }); layer.attach(videoElement, masterUrl)
//
// State for tests and CSS: .caption-overlay[data-role=captions][data-language] (hidden when no
// cue shows), its .caption-line spans; select[data-role=captions-choice].

import { t } from '../core/i18n.js';
import { el } from '../core/ui.js';
import { subtitleRenditions, firstSegment, parseWebVTT, plainText, preferredTrack } from './caption-text.js';

const CHOICE_KEY = 'podium.captions';

/** The tracks of a clip from its master playlist URL: [{language, name, url}] (url: the WebVTT). */
export async function captionTracks(masterUrl) {
  const response = await fetch(masterUrl, { cache: 'no-store' });
  if (!response.ok) return [];
  const base = new URL(masterUrl, location.href);
  const tracks = [];
  for (const rendition of subtitleRenditions(await response.text())) {
    const playlistUrl = new URL(rendition.uri, base);
    const playlist = await fetch(playlistUrl, { cache: 'no-store' });
    if (!playlist.ok) continue;
    const segment = firstSegment(await playlist.text());
    if (segment) tracks.push({ language: rendition.language, name: rendition.name, url: new URL(segment, playlistUrl).href });
  }
  return tracks;
}

function storedChoice() {
  try {
    return localStorage.getItem(CHOICE_KEY);
  } catch (_) {
    return null;
  }
}

function storeChoice(value) {
  try {
    localStorage.setItem(CHOICE_KEY, value);
  } catch (_) {
    // private mode: the choice lasts this page
  }
}

/**
 * The captions of one player: the overlay (appended to `container`, over the picture) and the
 * picker (`picker`, for the host to place). `large`: a big screen's size.
 */
export class CaptionLayer {
  constructor({ container, large = false }) {
    if (!document.querySelector('link[href="/app/media/captions.css"]')) {
      document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/media/captions.css' } }));
    }
    this.overlay = el('div', {
      class: 'caption-overlay' + (large ? ' caption-overlay-large' : ''),
      attrs: { 'data-role': 'captions', 'aria-live': 'off', hidden: true },
    });
    container.append(this.overlay);
    this.picker = el('select', {
      class: 'input caption-choice',
      attrs: { 'data-role': 'captions-choice', 'aria-label': t('video.captions-label'), title: t('video.captions'), hidden: true },
    });
    this.picker.addEventListener('change', () => {
      storeChoice(this.picker.value);
      this.choose(this.picker.value);
    });
    this.video = null;
    this.tracks = [];
    this.track = null;
    this.generation = 0;
  }

  /**
   * Follows `video` playing the clip at `masterUrl` (null: none), or with `known` tracks
   * ([{language, name, url}], the REST API's, for a player of the MP4).
   */
  async attach(video, masterUrl, known = null) {
    const generation = ++this.generation;
    this.detach();
    this.video = video;
    if (!video || (!masterUrl && !known)) return;
    let tracks = known || [];
    if (!known) {
      try {
        tracks = await captionTracks(masterUrl);
      } catch (_) {
        tracks = [];
      }
    }
    if (generation !== this.generation) return;
    this.tracks = tracks;
    this.picker.replaceChildren(
      el('option', { text: t('video.captions-off'), attrs: { value: 'off' } }),
      ...tracks.map((track) => el('option', { text: track.name, attrs: { value: track.language, lang: track.language } })),
    );
    this.picker.hidden = !tracks.length;
    const chosen = preferredTrack(tracks, storedChoice(), document.documentElement.lang);
    this.picker.value = chosen ? chosen.language : 'off';
    await this.choose(this.picker.value);
  }

  /** Shows the track in `language` ('off': none). */
  async choose(language) {
    const generation = this.generation;
    if (this.track) this.track.mode = 'disabled';
    this.track = null;
    this.render();
    const chosen = this.tracks.find((track) => track.language === language);
    if (!chosen || !this.video) return;
    const response = await fetch(chosen.url, { cache: 'no-store' });
    if (!response.ok || generation !== this.generation) return;
    const cues = parseWebVTT(await response.text());
    // A track of our own on the <video>: the browser keeps its active cues at the position.
    const track = this.video.addTextTrack(chosen.kind === 'captions' ? 'captions' : 'subtitles', chosen.name, chosen.language);
    track.mode = 'hidden';
    for (const cue of cues) track.addCue(new VTTCue(cue.start, cue.end, cue.text));
    track.addEventListener('cuechange', () => this.render());
    // The browser marks cues active as time passes; a clip stopped where it was put (a stage's
    // first frame) or moved by a seek is drawn from its position too.
    const video = this.video;
    const redraw = () => { if (this.track === track) this.render(); };
    for (const type of ['timeupdate', 'seeked', 'loadeddata']) video.addEventListener(type, redraw);
    this.track = track;
    this.overlay.dataset.language = chosen.language;
    this.overlay.lang = chosen.language;
    this.render();
  }

  /**
   * Draws the active cues (textContent only), from the <video>'s position: also called on every
   * tick of a stage, since a position set before the clip loaded lands without a `seeked` (a big
   * screen opened on a paused clip kept the first cue). Unchanged lines are left as they are.
   */
  render() {
    const track = this.track && this.track.mode !== 'disabled' ? this.track : null;
    const time = this.video ? this.video.currentTime : 0;
    const active = track && track.cues ? [...track.cues].filter((cue) => cue.startTime <= time && time < cue.endTime) : [];
    const lines = active.flatMap((cue) => plainText(cue.text).split('\n'));
    const shown = [...this.overlay.children].map((line) => line.textContent);
    if (shown.length === lines.length && shown.every((line, i) => line === lines[i])) {
      if (lines.length) this.place();
      return;
    }
    this.overlay.replaceChildren(...lines.map((line) => el('span', { class: 'caption-line', text: line })));
    this.overlay.hidden = !lines.length;
    if (lines.length) this.place();
  }

  /** Over the picture's lower part, not the letterbox's (a phone holds a wide clip in a tall screen). */
  place() {
    const video = this.video;
    if (!video || !video.videoWidth || !video.videoHeight || !video.clientHeight) return;
    const scale = Math.min(video.clientWidth / video.videoWidth, video.clientHeight / video.videoHeight);
    const picture = video.videoHeight * scale;
    // Above the browser's own control bar where it has one (the library's preview), not over its timeline.
    const controls = video.controls ? 52 : 0;
    this.overlay.style.bottom = Math.round(Math.max(controls, (video.clientHeight - picture) / 2 + picture * 0.05)) + 'px';
  }

  detach() {
    if (this.track) this.track.mode = 'disabled';
    this.track = null;
    this.tracks = [];
    this.video = null;
    this.picker.hidden = true;
    this.render();
  }
}
