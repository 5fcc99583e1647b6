// The channel's radio (#radio, #radio/<id>): the stations, and a player with "now playing".
//
// A station is live HLS audio (docs/channel.md, "Radio"): the page asks for the person's own
// stream URL (GET /api/v1/channel/radios/{id}/stream), plays it with Video.js (Safari plays HLS
// itself), and follows the schedule's track changes over Server-Sent Events (…/events).
//
// The player runs behind the live edge (it starts about three segments back), so the page shows
// the track at the player's position, not at the wall clock: each segment of the playlist carries
// its program date time, and the page maps the player's time onto the first segment it was given
// (what the player's timeline starts from). Until playback starts, it shows the track on air now.
//
// Non-members see how many minutes of today's allowance are left; once it is spent the server
// refuses the stream with `membership_required` and the page shows the membership message.
//
// State for tests and CSS: [data-role=radio-list] > [data-role=radio-item][data-id];
// [data-role=radio-player][data-id][data-state=idle|loading|playing|paused|limit];
// [data-role=radio-play][aria-pressed]; [data-role=radio-title], [data-role=radio-artist],
// [data-role=radio-next], [data-role=radio-elapsed], [data-role=radio-remaining-time],
// [data-role=radio-progress]; [data-role=radio-allowance] (non-members); [data-role=radio-share].

import { errorText, t } from '../core/i18n.js';
import { el, icon } from '../core/ui.js';
import { keepStreamFresh } from '../media/stream-renewal.js';
// Video.js, loaded once for the page (the videos' player loads the same one).
import { loadPlayerLibrary } from '../media/video-stage.js';

/** What to say about a failed request: the server's error in the page's language, else `fallbackKey`'s message. */
function failure(body, fallbackKey) {
  return body?.error ? errorText(body.error) : t(fallbackKey);
}


function ensureStyles() {
  if (document.querySelector('link[href="/app/channel/radio.css"]')) return;
  document.head.append(el('link', { attrs: { rel: 'stylesheet', href: '/app/channel/radio.css' } }));
}

/** "3:05". */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The program date times of a media playlist's segments, in order, as epoch milliseconds. */
export function programDates(text) {
  const dates = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) dates.push(Date.parse(line.slice(25)));
  }
  return dates;
}

/** The now-playing event that applies at `date` (ms): the last one that had started by then. */
export function eventAt(events, date) {
  let chosen = null;
  for (const event of events) {
    if (Date.parse(event.startedAt) <= date + 250) chosen = event;
  }
  return chosen || events[0] || null;
}

let ctx = null;
let root = null;
let current = null; // the open player

export function mount(section, context) {
  ctx = context;
  root = section;
  ensureStyles();
  section.classList.add('radio-section');
}

export function show(route) {
  if (current) current.close();
  current = null;
  if (route && route[0]) {
    current = new RadioPlayer(route[0]);
    root.replaceChildren(current.node);
    current.open();
  } else {
    showList();
  }
}

async function fetchJSON(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  const body = await response.json().catch(() => null);
  return { ok: response.ok, status: response.status, body };
}

async function showList() {
  const list = el('ul', { class: 'radio-list', attrs: { 'data-role': 'radio-list' } });
  root.replaceChildren(el('h1', { class: 'radio-heading', text: t('channel.tab.radio') }), list);
  const { ok, body } = await fetchJSON('/api/v1/channel/radios');
  if (!ok) {
    list.replaceWith(el('p', { class: 'radio-empty', text: failure(body, 'channel.radio.list-failed') }));
    return;
  }
  if (!body.length) {
    list.replaceWith(el('p', { class: 'radio-empty', text: t('channel.radio.none') }));
    return;
  }
  for (const radio of body) {
    const playing = radio.nowPlaying;
    list.append(
      el('li', {}, [
        el(
          'a',
          {
            class: 'radio-item',
            attrs: { href: `#radio/${radio.id}`, 'data-role': 'radio-item', 'data-id': radio.id },
          },
          [
            el('span', { class: 'radio-item-icon' }, [icon('volume', 24)]),
            el('span', { class: 'radio-item-text' }, [
              el('strong', { class: 'radio-item-name', text: radio.name }),
              el('span', {
                class: 'radio-item-playing',
                text: playing ? (playing.artist ? t('channel.radio.track-by', { title: playing.title, artist: playing.artist }) : playing.title) : radio.description,
              }),
            ]),
            el('span', { class: 'radio-item-go flip-inline' }, [icon('chevron-right')]),
          ],
        ),
      ]),
    );
  }
}

class RadioPlayer {
  constructor(id) {
    this.id = id;
    this.events = [];
    this.player = null;
    this.audio = null;
    this.source = null;
    this.timer = null;
    this.firstDate = null; // program date of the player's time 0
    this.allowance = null; // {seconds, at}: seconds left when last told, and when (ms)
    this.closed = false;
    this.build();
  }

  build() {
    const $ = (role, tag = 'span', cls = '') => el(tag, { class: cls, attrs: { 'data-role': role } });
    this.title = $('radio-title', 'h2', 'radio-track-title');
    this.artist = $('radio-artist', 'p', 'radio-track-artist');
    this.elapsed = $('radio-elapsed', 'span', 'radio-time');
    this.remainingTime = $('radio-remaining-time', 'span', 'radio-time');
    this.progress = el('div', { class: 'radio-progress', attrs: { 'data-role': 'radio-progress', role: 'progressbar', 'aria-label': t('channel.radio.track-progress'), 'aria-valuemin': '0', 'aria-valuemax': '100' } }, [el('div', { class: 'radio-progress-fill' })]);
    this.next = $('radio-next', 'p', 'radio-next');
    this.allowanceLine = $('radio-allowance', 'p', 'radio-allowance');
    this.allowanceLine.hidden = true;
    this.play = el('button', {
      class: 'radio-play',
      attrs: { type: 'button', 'data-role': 'radio-play', 'aria-pressed': 'false', 'aria-label': t('channel.radio.play') },
      on: { click: () => this.toggle() },
    }, [icon('play', 36)]);
    this.name = el('h1', { class: 'radio-name' });
    this.description = el('p', { class: 'radio-description' });
    this.share = el('button', {
      class: 'btn radio-share',
      attrs: { type: 'button', 'data-role': 'radio-share' },
      on: { click: () => this.shareStation() },
    }, [icon('share'), el('span', { text: t('channel.share') })]);
    this.status = el('p', { class: 'radio-status', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.limit = el('div', { class: 'radio-limit', attrs: { 'data-role': 'radio-limit' } });
    this.limit.hidden = true;
    this.card = el('div', { class: 'radio-card' }, [
      el('div', { class: 'radio-art' }, [icon('volume', 56)]),
      el('div', { class: 'radio-now' }, [
        el('p', { class: 'radio-label', text: t('channel.radio.now-playing') }),
        this.title,
        this.artist,
        this.progress,
        el('div', { class: 'radio-times' }, [this.elapsed, this.remainingTime]),
      ]),
      el('div', { class: 'radio-controls' }, [this.play]),
      this.next,
      this.allowanceLine,
      this.status,
    ]);
    this.node = el('article', { class: 'radio-player', attrs: { 'data-role': 'radio-player', 'data-id': this.id, 'data-state': 'idle' } }, [
      el('a', { class: 'radio-back', attrs: { href: '#radio' } }, [el('span', { class: 'flip-inline' }, [icon('chevron-left')]), el('span', { text: t('channel.radio.stations') })]),
      el('header', { class: 'radio-head' }, [el('div', {}, [this.name, this.description]), this.share]),
      this.card,
      this.limit,
    ]);
  }

  setState(state) {
    this.node.dataset.state = state;
    const playing = state === 'playing' || state === 'loading';
    this.play.setAttribute('aria-pressed', String(playing));
    this.play.setAttribute('aria-label', playing ? t('channel.radio.pause') : t('channel.radio.play'));
    this.play.replaceChildren(icon(playing ? 'pause' : 'play', 36));
  }

  async open() {
    const { ok, status, body } = await fetchJSON(`/api/v1/channel/radios/${this.id}`);
    if (this.closed) return;
    if (!ok) {
      this.card.replaceChildren(el('p', { class: 'radio-empty', text: status === 404 ? t('channel.radio.not-on-air') : failure(body, 'channel.radio.station-failed') }));
      return;
    }
    this.radio = body;
    document.title = t('channel.radio.document-title', { name: body.name });
    this.name.textContent = body.name;
    this.description.textContent = body.description || '';
    if (body.nowPlaying) this.events = [{ ...body.nowPlaying, remainingToday: null }];
    this.listen();
    this.render();
    this.timer = setInterval(() => this.render(), 500);
    // A non-member's allowance, as the server counts it (from the segments it served, which the
    // player fetches ahead of what it plays): checked while playing, so the message replaces the
    // player as soon as it is spent, whatever the player does with the refused requests.
    this.allowanceTimer = setInterval(() => {
      if (!ctx?.me?.member && this.node.dataset.state === 'playing') this.checkAllowance();
    }, 4000);
    if (!ctx?.me?.member) this.checkAllowance();
  }

  /** Non-members: how much is left today, before they press play (without starting a stream). */
  async checkAllowance() {
    const { ok, body } = await fetchJSON(`/api/v1/channel/radios/${this.id}/stream`);
    if (this.closed) return;
    if (!ok && body?.error?.code === 'membership_required') return this.showLimit(body);
    if (ok) this.setAllowance(body.remainingToday);
  }

  setAllowance(seconds) {
    if (seconds === null || seconds === undefined) {
      this.allowance = null;
      this.allowanceLine.hidden = true;
      return;
    }
    this.allowance = { seconds, at: Date.now() };
    this.allowanceLine.hidden = false;
    this.renderAllowance();
  }

  renderAllowance() {
    if (!this.allowance) return;
    const playing = this.node.dataset.state === 'playing';
    const left = this.allowance.seconds - (playing ? (Date.now() - this.allowance.at) / 1000 : 0);
    const minutes = Math.max(0, Math.ceil(left / 60));
    this.allowanceLine.textContent = t('channel.radio.allowance', { count: minutes });
  }

  listen() {
    this.source = new EventSource(`/api/v1/channel/radios/${this.id}/events`);
    this.source.addEventListener('nowplaying', (message) => {
      const event = JSON.parse(message.data);
      if (!event) return;
      this.events = this.events.filter((e) => e.startedAt !== event.startedAt || e.trackId !== event.trackId);
      this.events.push(event);
      this.events.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
      if (this.events.length > 8) this.events.splice(0, this.events.length - 8);
      if (event.remainingToday !== null && event.remainingToday !== undefined) this.setAllowance(event.remainingToday);
      this.render();
    });
    this.source.addEventListener('offair', () => {
      this.stop();
      this.status.textContent = t('channel.radio.off-air');
    });
  }

  /** Where the listener is, as a wall-clock time (ms): the player's position, or now. */
  playheadDate() {
    if (this.player && this.firstDate !== null && this.node.dataset.state === 'playing') {
      return this.firstDate + this.player.currentTime() * 1000;
    }
    if (this.audio && this.firstDate !== null && this.node.dataset.state === 'playing') {
      return this.firstDate + this.audio.currentTime * 1000;
    }
    return Date.now();
  }

  render() {
    this.renderAllowance();
    const date = this.playheadDate();
    const event = eventAt(this.events, date);
    if (!event) {
      this.title.textContent = t('channel.radio.nothing-yet');
      this.artist.replaceChildren();
      this.next.textContent = '';
      return;
    }
    if (this.title.textContent !== event.title) this.title.textContent = event.title;
    const artist = event.artist || '';
    const shown = this.artist.dataset.shown;
    const key = `${artist}|${event.website || ''}`;
    if (shown !== key) {
      this.artist.dataset.shown = key;
      this.artist.replaceChildren(
        event.website
          ? el('a', { text: artist || event.website, attrs: { href: event.website, target: '_blank', rel: 'noopener noreferrer' } })
          : artist,
      );
    }
    const elapsed = Math.min(event.duration, Math.max(0, (date - Date.parse(event.startedAt)) / 1000));
    this.elapsed.textContent = clock(elapsed);
    this.remainingTime.textContent = '-' + clock(event.duration - elapsed);
    const percent = event.duration ? Math.round((elapsed / event.duration) * 100) : 0;
    this.progress.firstChild.style.width = percent + '%';
    this.progress.setAttribute('aria-valuenow', String(percent));
    this.next.textContent = !event.next ? '' : event.next.artist
      ? t('channel.radio.next-by', { title: event.next.title, artist: event.next.artist })
      : t('channel.radio.next', { title: event.next.title });
  }

  toggle() {
    const state = this.node.dataset.state;
    if (state === 'playing' || state === 'loading') return this.pause();
    return this.start();
  }

  pause() {
    // Live radio: pausing stops the stream (and the counting); playing again rejoins the live edge.
    this.stop();
    this.setState('paused');
  }

  stop() {
    if (this.fresh) {
      this.fresh.stop();
      this.fresh = null;
    }
    if (this.player) {
      this.player.dispose();
      this.player = null;
    }
    if (this.audio) {
      this.audio.pause();
      this.audio.removeAttribute('src');
      this.audio.remove();
      this.audio = null;
    }
    this.firstDate = null;
  }

  /** Plays the station from the live edge; `given`: a stream URL already asked for (a renewal's). */
  async start(given = null) {
    this.setState('loading');
    this.status.textContent = '';
    const { ok, body } = given ? { ok: true, body: given } : await fetchJSON(`/api/v1/channel/radios/${this.id}/stream`);
    if (this.closed) return;
    if (!ok) {
      if (body?.error?.code === 'membership_required') return this.showLimit(body);
      this.setState('idle');
      this.status.textContent = failure(body, 'channel.radio.stream-failed');
      return;
    }
    this.setAllowance(body.remainingToday);
    // The first window the player gets: its time 0 is the first segment's program date.
    try {
      const playlist = await fetch(body.url, { credentials: 'same-origin' });
      if (playlist.status === 403) return this.showLimit(await playlist.json());
      this.firstDate = programDates(await playlist.text())[0] ?? null;
    } catch (_) {
      this.firstDate = null;
    }
    const engine = el('audio', { class: 'radio-engine', attrs: { preload: 'none' } });
    this.card.append(engine);
    const nativeHLS = engine.canPlayType('application/vnd.apple.mpegurl') && !window.MediaSource;
    try {
      if (nativeHLS) {
        this.audio = engine;
        engine.src = body.url;
        engine.addEventListener('playing', () => this.setState('playing'));
        engine.addEventListener('error', () => this.failed());
        await engine.play();
      } else {
        engine.remove();
        const videojs = await loadPlayerLibrary();
        if (this.closed || this.node.dataset.state !== 'loading') return;
        const video = el('video', { class: 'radio-engine', attrs: { playsinline: true } });
        this.card.append(video);
        this.player = videojs(video, { controls: false, autoplay: false, preload: 'auto', html5: { hls: { overrideNative: true } } });
        this.player.on('playing', () => this.setState('playing'));
        this.player.src({ src: body.url, type: 'application/x-mpegURL' });
        // The stream URL expires: a new one before it does (the live playlist and segments go on
        // with it), or, if a request was refused anyway, the station again from the live edge. The
        // player stops only if no new URL is to be had (the allowance spent: the message then).
        this.fresh = keepStreamFresh(this.player, {
          url: body.url,
          expiresAt: body.expiresAt,
          renew: () => this.renewStream(),
          reload: (stream) => {
            this.stop();
            return this.start(stream);
          },
          onFailed: () => this.failed(),
        });
        await this.player.play();
      }
    } catch (error) {
      if (this.node.dataset.state === 'loading') {
        this.setState('idle');
        this.status.textContent = t('channel.radio.press-play');
      }
    }
  }

  /** A new stream URL for the station (a renewal): its body, or throws. */
  async renewStream() {
    const { ok, body } = await fetchJSON(`/api/v1/channel/radios/${this.id}/stream`);
    if (!ok) throw Object.assign(new Error(failure(body, 'channel.radio.stream-failed')), { body });
    this.setAllowance(body.remainingToday);
    return body;
  }

  /** The player stopped on an error: the allowance may be spent (the server then says so). */
  async failed() {
    const { ok, body } = await fetchJSON(`/api/v1/channel/radios/${this.id}/stream`);
    if (this.closed) return;
    this.stop();
    if (!ok && body?.error?.code === 'membership_required') return this.showLimit(body);
    this.setState('idle');
    this.status.textContent = t('channel.radio.interrupted');
  }

  showLimit(body) {
    this.stop();
    this.setState('limit');
    this.allowanceLine.hidden = true;
    this.limit.hidden = false;
    // The message first, where the player was: it is what the person needs to read.
    this.card.before(this.limit);
    this.card.classList.add('is-limited');
    if (ctx && ctx.showLimit) {
      ctx.showLimit(body?.error || body, this.limit);
    } else {
      const error = body?.error || {};
      this.limit.replaceChildren(
        el('h2', { text: t('channel.radio.members-only') }),
        el('p', { text: error.message || '' }),
        el('p', { text: error.join || '' }),
      );
    }
    this.play.disabled = true;
  }

  shareStation() {
    const data = { title: this.radio?.name || t('channel.tab.radio'), text: this.radio?.description || '', url: `/channel#radio/${this.id}` };
    if (ctx && ctx.share) return ctx.share(data);
    const url = `${location.origin}/c/radio/${this.id}`;
    if (navigator.share) return navigator.share({ ...data, url }).catch(() => {});
    navigator.clipboard?.writeText(url);
  }

  close() {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.allowanceTimer);
    if (this.source) this.source.close();
    this.stop();
  }
}
