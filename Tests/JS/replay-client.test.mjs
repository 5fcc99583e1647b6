// The replay client (Public/app/replay/replay-client.js) against a small timeline of the replay
// endpoint's shape (Tests/Fixtures/replay-timeline.json): the fold from checkpoints agrees with a
// fold from the start at every instant; views, pointer and the stroke being drawn are those of
// the moment; playing passes each event, view and pointer sample once, and a seek back is a sync.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app, fixture, plain } from './support.mjs';

const replay = await app('replay/replay-client.js');
const live = await app('live/live.js');
const timeline = fixture('replay-timeline.json');

/** A replay client on a clock the test moves. */
function client(every = 3) {
  const clock = { ms: 0 };
  const replayClient = new replay.ReplayClient(timeline, { now: () => clock.ms, every });
  const seen = [];
  for (const type of ['sync', 'welcome', 'change', 'message', 'pointer', 'inking']) {
    replayClient.addEventListener(type, (event) => seen.push({ type, detail: event.detail }));
  }
  return { replayClient, clock, seen };
}

test('the state at any instant is the fold of the events up to it, from a checkpoint', () => {
  const { events } = replay.normalizeTimeline(timeline);
  for (const every of [1, 2, 3, 5, 100]) {
    const checkpoints = replay.buildCheckpoints(events, every);
    assert.equal(checkpoints.length, 1 + Math.floor(events.length / every));
    for (let t = 0; t <= 60000; t += 250) {
      let expected = live.emptyState();
      for (const { at, event } of events) if (at <= t) expected = live.applyEvent(expected, event);
      const { state, count } = replay.stateAt(events, checkpoints, t, every);
      assert.deepEqual(plain(state), plain(expected), `every ${every}, t ${t}`);
      assert.equal(count, events.filter((e) => e.at <= t).length);
    }
  }
});

test('seek: page, strokes, poll and spotlight at three instants', () => {
  const { replayClient, seen } = client();
  replayClient.seek(2600);
  assert.equal(replayClient.state.page, 3);
  replayClient.seek(9000);
  assert.equal(replayClient.state.page, 2);
  assert.deepEqual(replayClient.state.strokes.map((s) => s.id), ['s1']);
  replayClient.seek(16500);
  assert.equal(replayClient.state.polls[0].status, 'open');
  assert.equal(replayClient.state.spotlight.kind, 'pollResults');
  const welcome = seen.filter((e) => e.type === 'welcome').pop().detail.welcome;
  assert.deepEqual(welcome.results.map((r) => r.counts), [[1, 2]]);
  assert.equal(welcome.questions.questions[0].id, 'q1');
  replayClient.seek(55000);
  assert.equal(replayClient.state.page, 3);
  assert.deepEqual(replayClient.state.strokes, []);
  assert.equal(replayClient.state.spotlight, undefined);
  // Back to before anything: the empty state, no results.
  replayClient.seek(0);
  assert.equal(replayClient.state.page, 1);
  assert.deepEqual(seen.filter((e) => e.type === 'welcome').pop().detail.welcome.results, []);
  // Outside the session: kept inside it.
  replayClient.seek(99999);
  assert.equal(replayClient.time, 60000);
});

test('views: the newest of each kind at or before t', () => {
  const { views } = replay.normalizeTimeline(timeline);
  assert.deepEqual(replay.viewsAt(views, 12999), { results: [], publicQuestions: null, leaderboard: null });
  assert.deepEqual(replay.viewsAt(views, 13000).results.map((r) => r.answered), [1]);
  assert.deepEqual(replay.viewsAt(views, 14999).results.map((r) => r.answered), [1]);
  assert.deepEqual(replay.viewsAt(views, 15000).results.map((r) => r.answered), [3]);
  const late = replay.viewsAt(views, 40000);
  assert.equal(late.leaderboard.entries[0].name, 'Ada');
  assert.equal(late.publicQuestions.questions.length, 1);
});

test('pointer: the newest sample, hidden after a hide', () => {
  const { pointer } = replay.normalizeTimeline(timeline);
  assert.equal(replay.pointerAt(pointer, 3000), null);
  assert.deepEqual(replay.pointerAt(pointer, 3600), { type: 'pointer', page: 2, deck: null, x: 0.41, y: 0.22, visible: true });
  assert.equal(replay.pointerAt(pointer, 4500).x, 0.5);
  assert.deepEqual(replay.pointerAt(pointer, 5000), { type: 'pointer', visible: false });
});

test('drawn: a stroke grows from its start to its commit', () => {
  const { events, drawn } = replay.normalizeTimeline(timeline);
  const list = replay.drawings(events, drawn);
  assert.deepEqual(list.map((d) => [d.id, d.start, d.end]), [['s1', 6000, 8000]]);
  assert.equal(replay.inkingAt(list, 5999), null);
  assert.equal(replay.inkingAt(list, 6000).points.length, 1);
  assert.equal(replay.inkingAt(list, 7000).points.length, 2);
  assert.equal(replay.inkingAt(list, 7999).points.length, 4);
  const inking = replay.inkingAt(list, 7500);
  assert.deepEqual({ page: inking.page, tool: inking.tool, color: inking.color, width: inking.width }, { page: 2, tool: 'pen', color: '#e53935', width: 0.004 });
  assert.equal(replay.inkingAt(list, 8000), null, 'committed: drawn by the state, not as being drawn');
  // A stroke whose start came after its commit (clock skew) is not grown.
  assert.deepEqual(replay.drawings(events, { s1: 9000 }), []);
});

test('playing passes every event, view and pointer sample once, in order', () => {
  const { replayClient, clock, seen } = client();
  replayClient.seek(0);
  seen.length = 0;
  replayClient.play();
  const inkingSizes = [];
  for (let ms = 0; ms <= 61000; ms += 100) {
    clock.ms = ms;
    replayClient.step();
    if (replayClient.inking) inkingSizes.push(replayClient.inking.points.length);
  }
  const changes = seen.filter((e) => e.type === 'change').map((e) => e.detail.event.seq);
  // (The event at 0 is in the state the seek to 0 gave.)
  assert.deepEqual(changes, timeline.events.filter((e) => e.at > 0).map((e) => e.event.seq));
  assert.deepEqual(seen.filter((e) => e.type === 'message').map((e) => e.detail.type), ['results', 'results', 'publicQuestions', 'leaderboard']);
  assert.deepEqual(seen.filter((e) => e.type === 'pointer').map((e) => e.detail.visible), [true, true, false]);
  assert.ok(inkingSizes.length >= 15 && inkingSizes[0] === 1 && inkingSizes[inkingSizes.length - 1] === 4, String(inkingSizes));
  const inking = seen.filter((e) => e.type === 'inking');
  assert.equal(inking[inking.length - 1].detail.done, true, 'the stroke in progress ends');
  assert.equal(replayClient.playing, false, 'stops at the end');
  assert.equal(replayClient.time, 60000);
  // The live client's final state: the same as a seek to the end.
  const end = plain(replayClient.state);
  replayClient.seek(60000);
  assert.deepEqual(plain(replayClient.state), end);
});

test('speed, pause and the clock the video screen reads', () => {
  const { replayClient, clock } = client();
  replayClient.seek(10000);
  assert.equal(replayClient.clock.speed, 0, 'paused: a clip stands still');
  assert.equal(replayClient.clock.now(), Date.parse('2026-11-30T09:00:10.000Z') / 1000);
  replayClient.setSpeed(2);
  replayClient.play();
  clock.ms = 1000;
  assert.equal(replayClient.time, 12000);
  assert.equal(replayClient.clock.speed, 2);
  replayClient.stepSpeed(-1);
  assert.equal(replayClient.speed, 1.5);
  clock.ms = 2000;
  assert.equal(replayClient.time, 13500);
  replayClient.setSpeed(9);
  assert.equal(replayClient.speed, 2);
  replayClient.pause();
  clock.ms = 5000;
  assert.equal(replayClient.time, 13500);
  // Stepping back in time (a seek by the clock) is a sync.
  replayClient.clock.set(3000);
  let synced = false;
  replayClient.addEventListener('sync', () => (synced = true));
  replayClient.step();
  assert.ok(synced);
  assert.equal(replayClient.state.page, 2);
});

test('chapters and audio takes', () => {
  const { events, recordings, startedAt } = replay.normalizeTimeline(timeline);
  // Paging 2 → 3 → 2 within a second and a half is one chapter.
  assert.deepEqual(replay.chapters(events).map((c) => [c.at, c.kind, c.page ?? c.poll.id]), [[3000, 'page', 2], [12000, 'poll', 7], [45000, 'page', 3]]);
  const takes = replay.audioTakes(recordings, startedAt);
  assert.deepEqual(takes.map((take) => [take.start, take.end]), [[1000, 31000]]);
  assert.equal(replay.audioAt(takes, 500), null);
  assert.equal(replay.audioAt(takes, 3500).position, 2.5);
  assert.equal(replay.audioAt(takes, 31000), null);
  assert.deepEqual(replay.audioTakes([{ ...recordings[0], status: 'packaging' }], startedAt), []);
});

test('a room replays from the room as it opens, as the core starts one', () => {
  const { streams } = fixture('event-stream.json');
  const room = streams.find((stream) => stream.initial && stream.initial.room);
  assert.ok(room, 'the event-stream fixture has a room stream');
  assert.deepEqual(plain(replay.initialState({ kind: 'room' })), plain({ ...live.emptyState(), ...room.initial }));
  assert.equal(replay.initialState({ kind: 'session' }).room, undefined);
  // Its decks come with its events: the deck shown is on the stage.
  const client = new replay.ReplayClient({
    session: { kind: 'room', code: 'R00M01' }, startedAt: '2026-11-30T09:00:00Z', duration: 2000,
    events: [
      { at: 100, event: { type: 'deckAdded', seq: 1, deck: { id: 'd1', title: 'Talk', owner: 'u1', page: 1, pages: [{ imageUrl: '/blobs/a.png' }] } } },
      { at: 200, event: { type: 'deckShown', seq: 2, deck: 'd1', page: 1 } },
    ],
  }, { now: () => 0 });
  client.seek(2000);
  assert.equal(live.stageDeck(client.state).id, 'd1');
  assert.equal(live.stagePages(client.session, client.state).length, 1);
});

test("the passcode goes with the HLS engine's requests for a take's files, and nowhere else", () => {
  const base = 'https://podium.school.test/s/ABCDEF/replay';
  const take = () => ({ uri: '/api/v1/recordings/rec_1/hls/master.m3u8', headers: { Accept: '*/*' } });
  assert.deepEqual(replay.withPasscode(take(), '4711', base).headers, { Accept: '*/*', 'X-Podium-Passcode': '4711' });
  // A segment named relative to its playlist, absolute on this server: the same.
  assert.equal(replay.withPasscode({ uri: 'https://podium.school.test/api/v1/recordings/rec_1/hls/seg-00000.m4s' }, '4711', base).headers['X-Podium-Passcode'], '4711');
  // No passcode, another server, another path (a clip's stream): untouched.
  assert.deepEqual(replay.withPasscode(take(), '', base).headers, { Accept: '*/*' });
  assert.equal(replay.withPasscode({ uri: 'https://elsewhere.test/api/v1/recordings/rec_1/hls/master.m3u8' }, '4711', base).headers, undefined);
  assert.equal(replay.withPasscode({ uri: '/stream/tok/index.m3u8' }, '4711', base).headers, undefined);
});
