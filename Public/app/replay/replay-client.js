// The replay client (issue #44): what a LiveClient (live/live.js) gives the renderers, driven by a
// replay clock instead of a socket. It reads the timeline of `GET /api/v1/sessions/{code}/replay`
// (docs/protocol.md, "Replay") and, at replay time t (ms since the session started):
//
// - state: the durable events with at ≤ t folded through live.js's own `applyEvent` (the same
//   reducer the live clients use), from the nearest checkpoint (one every CHECKPOINT_EVERY events,
//   so a seek folds at most that many);
// - views: of the ephemeral views a viewer was sent (results per poll, the public questions, the
//   leaderboard), the newest of each kind ≤ t;
// - pointer: the newest sample ≤ t (hidden when that was a hide);
// - the stroke being drawn: a stroke whose drawing began (timeline `drawn`) at or before t and
//   which was committed (its event's `at`) after t grows from its first point to its last.
//
// Events dispatched, as LiveClient's (CustomEvent, data in `detail`):
//   sync     {state}                       the whole state was replaced (a seek, the first load)
//   welcome  {welcome, resumed: false}     after every sync: welcome.results / leaderboard /
//                                          questions are the views at t (spotlight.js reads them)
//   change   {event, state}                a durable event was passed while playing
//   message  {type: results|publicQuestions|leaderboard, …}   a view passed while playing
//   pointer  {page, x, y, visible}         the pointer moved (or went)
//   inking   {page, tool, color, width, points} or {done: true}   the stroke being drawn
//   status   {state}                       'replay' (kept for pages that show a connection)
//   time     {time, playing, speed}        the replay clock moved (the page's timeline)
//
// The replay clock (`clock`) is what video-stage.js reads instead of the server's clock: now()
// is the server time (seconds since 1970) the replay is at, `speed` the replay's speed (0 while
// paused), so a clip on the stage is where it was at that moment of the session.

import { applyEvent, emptyState } from '../live/live.js';

export const CHECKPOINT_EVERY = 200;
export const SPEEDS = [0.5, 0.75, 1, 1.25, 1.5, 2];

/** A JSON date of the API (ISO 8601 text, or seconds since 1970) in ms since 1970. */
export function dateMs(value) {
  if (typeof value === 'number') return value > 1e11 ? value : value * 1000;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : 0;
}

/** The timeline with every list present and sorted by time (the server sends them so; a fixture may not). */
export function normalizeTimeline(raw) {
  const byAt = (a, b) => a.at - b.at;
  const events = (raw.events || []).slice().sort((a, b) => a.at - b.at || (a.event.seq ?? 0) - (b.event.seq ?? 0));
  return {
    session: raw.session || null,
    startedAt: dateMs(raw.startedAt),
    duration: Math.max(0, Number(raw.duration) || 0, events.length ? events[events.length - 1].at : 0),
    live: Boolean(raw.live),
    events,
    views: (raw.views || []).slice().sort(byAt),
    pointer: (raw.pointer || []).slice().sort(byAt),
    drawn: raw.drawn || {},
    recordings: raw.recordings || [],
  };
}

/**
 * The state a replay folds from: a session's empty state, and for a room the room's as it opens
 * (RoomSnapshot's initial value: no decks, nobody in control), which its room events fill.
 */
export function initialState(session) {
  const state = emptyState();
  if (!session || session.kind !== 'room') return state;
  return {
    ...state,
    room: {
      background: '#000000', deck: null, decks: [], shown: [], controlSince: null,
      control: { active: null, lender: null, moderatorDoNotDisturb: false, presenterDoNotDisturb: false, presenters: [], queue: [], queueCap: null },
      talks: { defaultLength: null, lengths: {}, onProjector: false, used: {} },
    },
  };
}

/** The index of the last item with at ≤ t in a list sorted by at (-1 when none). */
export function lastAtOrBefore(list, t) {
  let low = 0;
  let high = list.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (list[middle].at <= t) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/**
 * Checkpoints of the fold: checkpoints[k] is the state after the first k·every events
 * (checkpoints[0] the empty state).
 */
export function buildCheckpoints(events, every = CHECKPOINT_EVERY, initial = emptyState()) {
  const checkpoints = [initial];
  let state = initial;
  events.forEach(({ event }, index) => {
    state = applyEvent(state, event);
    if ((index + 1) % every === 0) checkpoints.push(state);
  });
  return checkpoints;
}

/** {state, count}: the state after the events with at ≤ t (count of them), from the nearest checkpoint. */
export function stateAt(events, checkpoints, t, every = CHECKPOINT_EVERY) {
  const count = lastAtOrBefore(events, t) + 1;
  const k = Math.min(Math.floor(count / every), checkpoints.length - 1);
  let state = checkpoints[k];
  for (let index = k * every; index < count; index += 1) state = applyEvent(state, events[index].event);
  return { state, count };
}

/** The key a view is newest-wins by: its kind, and a poll's results per poll. */
export function viewKey(message) {
  return message.type === 'results' ? 'results:' + message.pollId : message.type;
}

/** The views a viewer had at t: {results: [newest per poll], publicQuestions, leaderboard} (null when none yet). */
export function viewsAt(views, t) {
  const newest = new Map();
  const end = lastAtOrBefore(views, t);
  for (let index = 0; index <= end; index += 1) newest.set(viewKey(views[index].message), views[index].message);
  const results = [];
  let publicQuestions = null;
  let leaderboard = null;
  for (const message of newest.values()) {
    if (message.type === 'results') results.push(message);
    else if (message.type === 'publicQuestions') publicQuestions = message;
    else if (message.type === 'leaderboard') leaderboard = message;
  }
  return { results, publicQuestions, leaderboard };
}

/** A side-log sample as the socket's pointer message: {page, deck, x, y, visible}. */
export function pointerMessage(sample) {
  if (!sample || sample.hidden || !Number.isFinite(sample.x)) return { type: 'pointer', visible: false };
  const message = { type: 'pointer', page: sample.page, x: sample.x, y: sample.y, visible: true };
  if (sample.deck !== undefined) message.deck = sample.deck;
  return message;
}

/** The pointer at t: the newest sample's message, or null before the first sample. */
export function pointerAt(pointer, t) {
  const index = lastAtOrBefore(pointer, t);
  return index < 0 ? null : pointerMessage(pointer[index]);
}

/**
 * The strokes that were drawn while recording: [{id, start, end, stroke}] sorted by start, from
 * the timeline's `drawn` (when each began) and the stroke events (when each was committed).
 */
export function drawings(events, drawn) {
  const list = [];
  for (const { at, event } of events) {
    if (event.type !== 'stroke' || !event.stroke) continue;
    const start = drawn[event.stroke.id];
    if (typeof start !== 'number' || start > at) continue;
    list.push({ id: event.stroke.id, start, end: at, stroke: event.stroke });
  }
  return list.sort((a, b) => a.start - b.start);
}

/**
 * The stroke being drawn at t, as an `inking` message (its points so far, in proportion of the
 * time it took), or null. The newest begun of those under way.
 */
export function inkingAt(list, t) {
  let found = null;
  for (const drawing of list) {
    if (drawing.start > t) break;
    if (t < drawing.end) found = drawing;
  }
  if (!found) return null;
  const { stroke, start, end } = found;
  const points = stroke.points || [];
  const fraction = end > start ? (t - start) / (end - start) : 1;
  const shown = Math.max(1, Math.min(points.length, Math.ceil(fraction * points.length)));
  const message = { type: 'inking', strokeId: found.id, page: stroke.page, tool: stroke.tool, color: stroke.color, width: stroke.width, points: points.slice(0, shown) };
  if (stroke.deck !== undefined) message.deck = stroke.deck;
  return message;
}

/**
 * Chapters: the slide changes (a page or deck shown) and the polls opened, [{at, kind, page|poll}];
 * a slide change within `merge` ms of the next one is folded into it (paging through quickly).
 */
export function chapters(events, merge = 1500) {
  const list = [];
  let page = null;
  for (const { at, event } of events) {
    if (event.type === 'page' || event.type === 'deckShown') {
      if (event.page === page && event.type === 'page') continue;
      page = event.page;
      const last = list[list.length - 1];
      if (last && last.kind === 'page' && at - last.at < merge) list.pop();
      list.push({ at, kind: 'page', page: event.page, deck: event.deck ?? null });
    } else if (event.type === 'pollOpened' && event.poll) {
      list.push({ at, kind: 'poll', poll: event.poll });
    }
  }
  return list;
}

/**
 * The ready audio takes on the replay's time line: [{id, start, end, playlist}] (ms since the
 * session's start), sorted by start. A take whose length is not known yet has none (not played).
 */
export function audioTakes(recordings, startedAt) {
  return (recordings || [])
    .filter((r) => r.status === 'ready' && r.playlistUrl && Number(r.duration) > 0)
    .map((r) => {
      const start = dateMs(r.startedAt) - startedAt;
      return { id: r.id, start, end: start + Number(r.duration), playlist: r.playlistUrl };
    })
    .sort((a, b) => a.start - b.start);
}

const TAKE_FILES = '/api/v1/recordings/';

/**
 * A request's `options` (the HLS engine's: `uri`, `headers`), with `X-Podium-Passcode` added when
 * it asks this server (`base`'s origin) for a take's files and there is a passcode: a replay
 * shared with the link of a session with a passcode lets its voice in only so.
 */
export function withPasscode(options, passcode, base) {
  if (!options || !options.uri || !passcode) return options;
  const url = new URL(options.uri, base);
  if (url.origin !== new URL(base).origin || !url.pathname.startsWith(TAKE_FILES)) return options;
  options.headers = { ...(options.headers || {}), 'X-Podium-Passcode': passcode };
  return options;
}

/** The take playing at t and where in it (seconds), or null: quiet outside a take. */
export function audioAt(takes, t) {
  let found = null;
  for (const take of takes) if (take.start <= t && t < take.end) found = take;
  return found ? { take: found, position: (t - found.start) / 1000 } : null;
}

/** The replay's clock: where the replay is (ms since the session's start), moving while playing. */
export class ReplayClock extends EventTarget {
  constructor(startedAt, env = {}) {
    super();
    this.startedAt = startedAt; // ms since 1970
    this.nowMs = env.now || (() => performance.now());
    this.base = 0; // replay ms at `wall`
    this.wall = this.nowMs();
    this.rate = 1;
    this.playing = false;
    this.duration = Infinity;
  }

  /** Replay time now, ms since the session's start (stops at the end). */
  get time() {
    const t = this.playing ? this.base + (this.nowMs() - this.wall) * this.rate : this.base;
    return Math.max(0, Math.min(this.duration, t));
  }

  set(time) {
    this.base = Math.max(0, Math.min(this.duration, time));
    this.wall = this.nowMs();
  }

  /** What video-stage.js reads: the server's time (seconds since 1970) at the replay's moment. */
  now() {
    return (this.startedAt + this.time) / 1000;
  }

  /** The replay's speed for a clip on the stage (0 while paused). */
  get speed() {
    return this.playing ? this.rate : 0;
  }

  get error() {
    return 0;
  }

  stayFresh() {
    // a live clock pings the server; the replay's needs nothing
  }
}

export class ReplayClient extends EventTarget {
  /**
   * @param {object} timeline the answer of GET /api/v1/sessions/{code}/replay
   * @param {object} [env] for tests: now() (ms, monotonic), every (events per checkpoint)
   */
  constructor(timeline, env = {}) {
    super();
    this.timeline = normalizeTimeline(timeline);
    this.every = env.every || CHECKPOINT_EVERY;
    this.session = this.timeline.session;
    this.code = this.session ? this.session.code : null;
    this.duration = this.timeline.duration;
    this.viewers = 0;
    this.connection = 'replay';
    this.lastSeq = null;
    this.checkpoints = buildCheckpoints(this.timeline.events, this.every, initialState(this.session));
    this.drawings = drawings(this.timeline.events, this.timeline.drawn);
    this.chapters = chapters(this.timeline.events);
    this.takes = audioTakes(this.timeline.recordings, this.timeline.startedAt);
    this.clock = new ReplayClock(this.timeline.startedAt, env);
    this.clock.duration = this.duration;
    this.state = this.checkpoints[0];
    this.at = -1; // the replay time the state is at
    this.count = 0; // events applied
    this.views = { results: [], publicQuestions: null, leaderboard: null };
    this.inking = null;
  }

  // What the renderers may call on a LiveClient, quietly: the replay sends nothing.
  get isOpen() {
    return false;
  }

  get pendingCount() {
    return 0;
  }

  send() {
    return Promise.reject({ code: 'replay', message: 'A replay sends nothing.' });
  }

  sendEphemeral() {}

  raw() {}

  connect() {}

  close() {
    this.pause();
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  get time() {
    return this.clock.time;
  }

  get playing() {
    return this.clock.playing;
  }

  get speed() {
    return this.clock.rate;
  }

  /** Goes to replay time t (ms): the state, views, pointer and stroke there, as one sync. */
  seek(t) {
    const time = Math.max(0, Math.min(this.duration, Number(t) || 0));
    this.clock.set(time);
    const { state, count } = stateAt(this.timeline.events, this.checkpoints, time, this.every);
    this.state = state;
    this.count = count;
    this.at = time;
    this.lastSeq = count ? this.timeline.events[count - 1].event.seq ?? count : null;
    this.views = viewsAt(this.timeline.views, time);
    this.emit('sync', { state: this.state });
    this.emit('welcome', {
      welcome: {
        type: 'welcome', session: this.session, snapshot: this.state, seq: this.lastSeq, viewers: 0,
        results: this.views.results, leaderboard: this.views.leaderboard, questions: this.views.publicQuestions,
      },
      resumed: false,
    });
    if (this.views.publicQuestions) this.emit('message', this.views.publicQuestions);
    const pointer = pointerAt(this.timeline.pointer, time);
    this.emit('pointer', pointer || { type: 'pointer', visible: false });
    this.inking = inkingAt(this.drawings, time);
    this.emit('inking', this.inking || { type: 'inking', done: true });
    this.emit('time', this.timeInfo());
  }

  /**
   * Moves the state on to the clock's time: events, views and pointer samples passed since the
   * last step are dispatched one by one, as a live client would have; going back is a seek.
   */
  step() {
    const time = this.clock.time;
    if (time < this.at) {
      this.seek(time);
      return;
    }
    const from = this.at;
    const events = this.timeline.events;
    while (this.count < events.length && events[this.count].at <= time) {
      const { event } = events[this.count];
      this.state = applyEvent(this.state, event);
      this.count += 1;
      this.lastSeq = event.seq ?? this.count;
      this.emit('change', { event, state: this.state });
    }
    const views = this.timeline.views;
    for (let index = lastAtOrBefore(views, from) + 1; index < views.length && views[index].at <= time; index += 1) {
      this.emit('message', views[index].message);
    }
    if (lastAtOrBefore(views, time) !== lastAtOrBefore(views, from)) this.views = viewsAt(views, time);
    const pointer = this.timeline.pointer;
    const last = lastAtOrBefore(pointer, time);
    if (last >= 0 && last !== lastAtOrBefore(pointer, from)) this.emit('pointer', pointerMessage(pointer[last]));
    this.at = time;
    this.showInking(time);
    if (this.clock.playing && time >= this.duration) this.pause();
    this.emit('time', this.timeInfo());
  }

  showInking(time) {
    const inking = inkingAt(this.drawings, time);
    if (inking) {
      if (!this.inking || this.inking.strokeId !== inking.strokeId || this.inking.points.length !== inking.points.length) this.emit('inking', inking);
    } else if (this.inking) this.emit('inking', { type: 'inking', done: true });
    this.inking = inking;
  }

  timeInfo() {
    return { time: this.at, playing: this.clock.playing, speed: this.clock.rate, duration: this.duration };
  }

  play() {
    if (this.clock.playing) return;
    if (this.at >= this.duration) this.seek(0);
    this.clock.set(this.at);
    this.clock.playing = true;
    this.emit('time', this.timeInfo());
  }

  pause() {
    if (!this.clock.playing) return;
    const time = this.clock.time;
    this.clock.playing = false;
    this.clock.set(time);
    this.step();
  }

  toggle() {
    if (this.clock.playing) this.pause();
    else this.play();
  }

  setSpeed(rate) {
    const time = this.clock.time;
    this.clock.rate = Math.max(SPEEDS[0], Math.min(SPEEDS[SPEEDS.length - 1], Number(rate) || 1));
    this.clock.set(time);
    this.emit('time', this.timeInfo());
  }

  /** The speed one step slower (-1) or faster (+1). */
  stepSpeed(direction) {
    const index = SPEEDS.indexOf(this.clock.rate);
    const next = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, (index < 0 ? SPEEDS.indexOf(1) : index) + direction))];
    this.setSpeed(next);
  }
}
