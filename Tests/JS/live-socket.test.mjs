// The browser's reconnecting socket (Public/app/live/socket.js) as the live pages' live.js uses
// it, driven deterministically: each test hands the client a fake WebSocket, fake timers and a
// fake clock (fake-env.mjs), opens and drops sockets itself and moves time on by hand, so a
// reconnect happens exactly when the test says and nothing races a real timer.
//
// - order, duplicates, gaps and resync, resume, resend, fatal errors (live.js's protocol rules);
// - drop -> back-off (half to the whole of 0.5 s doubling to 10 s, jitter from the injected
//   random) -> reconnect with lastSeq; the back-off starts again after a welcome; `online`
//   reconnects at once; a silent socket is pinged and then dropped;
// - commands not acknowledged are sent again after the welcome, once each, in the order sent;
// - `reconnect` with reason `shutdown`: back in 1-5 s, status says why;
// - every error frame reaches the page's `error` hook (for the presenter's banner).
// The storyboard editor's use of the same socket (storyboard/doc.js, whose connection imports the
// page's i18n.js) is tested in Chromium: Tests/Browser/test_live_socket.py.
import assert from 'node:assert/strict';
import test from 'node:test';
import { fakeEnv } from './fake-env.mjs';
import { app, plain } from './support.mjs';

const { LiveClient } = await app('live/live.js');
const full = { x: 0, y: 0, w: 1, h: 1 };

test('live.js protocol rules: order, duplicates, gaps and resync, resume, resend, fatal errors', async () => {
  const env = fakeEnv();
  const sockets = env.sockets;
  const out = {};
  const client = new LiveClient('ABCDEF', { role: 'viewer', name: 'Tess' }, env);
  const applied = [];
  client.addEventListener('change', (e) => applied.push(e.detail.event.seq));
  client.connect();
  out.firstURL = sockets[0].url;
  sockets[0].open();
  const first = sockets[0];
  out.hello1 = first.sent[0];
  first.receive({ type: 'welcome', role: 'viewer', seq: 5, session: { pages: [] }, viewers: 1,
    snapshot: { page: 2, viewport: full, blank: 'none', locked: true, ended: false } });
  out.afterWelcome = { page: client.state.page, lastSeq: client.lastSeq, connection: client.connection };
  first.receive({ type: 'page', seq: 6, page: 3 });
  first.receive({ type: 'page', seq: 6, page: 3 });
  first.receive({ type: 'page', seq: 5, page: 1 });
  first.receive({ type: 'blank', seq: 8, mode: 'black' });
  out.resync = first.sent[first.sent.length - 1];
  out.blankBeforeFill = client.state.blank;
  first.receive({ type: 'zoom', seq: 7, viewport: { x: 0.25, y: 0.25, w: 0.5, h: 0.5 } });
  first.receive({ type: 'blank', seq: 8, mode: 'black' });
  const acked = client.send({ type: 'goto', page: 4 });
  out.goto = first.sent[first.sent.length - 1];
  first.drop();
  // The first reconnect waits between 250 and 500 ms (random 0.5: 375 ms), on the fake clock.
  out.reconnectWaits = env.waits();
  env.advance(374);
  out.socketsBeforeBackoff = sockets.length;
  env.advance(1);
  out.socketsAfterBackoff = sockets.length;
  const second = sockets[1];
  second.open();
  out.hello2 = second.sent[0];
  second.receive({ type: 'welcome', role: 'viewer', seq: 9, session: { pages: [] }, viewers: 1,
    snapshot: { page: 4, viewport: full, blank: 'black', locked: true, ended: false },
    events: [{ type: 'blank', seq: 8, mode: 'black' }, { type: 'page', seq: 9, page: 4 }] });
  out.resent = second.sent[1];
  second.receive({ type: 'page', seq: 9, page: 4 });
  second.receive({ type: 'ack', id: out.goto.id, seq: 9 });
  out.acked = await acked;
  out.applied = applied;
  out.final = { page: client.state.page, lastSeq: client.lastSeq, blank: client.state.blank };
  client.close();

  const env2 = fakeEnv();
  const refused = new LiveClient('ABCDEF', { role: 'viewer', passcode: 'nope' }, env2);
  let fatal = null;
  refused.addEventListener('fatal', (e) => { fatal = e.detail; });
  refused.connect();
  env2.sockets[0].open();
  out.hello3 = env2.sockets[0].sent[0];
  env2.sockets[0].receive({ type: 'error', code: 'passcode_wrong', message: 'Wrong passcode.' });
  env2.sockets[0].drop();
  out.fatal = { code: fatal && fatal.code, connection: refused.connection, stopped: refused.stopped };
  env2.advance(60000);
  out.socketsAfterFatal = env2.sockets.length;
  out.timersAfterFatal = env2.waits();

  const result = plain(out);
  assert.ok(result.firstURL.endsWith('/api/v1/sessions/ABCDEF/live'), result.firstURL);
  assert.deepEqual(result.hello1, { type: 'hello', role: 'viewer', name: 'Tess' });
  assert.deepEqual(result.afterWelcome, { page: 2, lastSeq: 5, connection: 'live' });
  assert.deepEqual(result.resync, { type: 'resync', afterSeq: 6 }, 'a gap asks for the missing events');
  assert.equal(result.blankBeforeFill, 'none', 'an event after a gap waits for the gap');
  assert.deepEqual(result.applied, [6, 7, 8, 9], 'each event once, in seq order');
  assert.deepEqual(result.reconnectWaits, [375], 'the first reconnect waits half the first back-off plus jitter');
  assert.deepEqual([result.socketsBeforeBackoff, result.socketsAfterBackoff], [1, 2], 'the reconnect opens when the back-off ends, not before');
  assert.equal(result.hello2.lastSeq, 8, 'a reconnect resumes from the last applied seq');
  assert.deepEqual(result.resent, result.goto, 'an unacknowledged command is sent again with its id');
  assert.ok(result.goto.id);
  assert.deepEqual(result.acked, { type: 'ack', id: result.goto.id, seq: 9 });
  assert.deepEqual(result.final, { page: 4, lastSeq: 9, blank: 'black' });
  assert.deepEqual(result.hello3, { type: 'hello', role: 'viewer', passcode: 'nope' });
  assert.deepEqual(result.fatal, { code: 'passcode_wrong', connection: 'failed', stopped: true });
  assert.deepEqual([result.socketsAfterFatal, result.timersAfterFatal], [1, []], 'a refused hello is not tried again');
});

test('drop -> back-off with jitter -> reconnect with lastSeq; online; a silent socket', () => {
  const env = fakeEnv();
  const out = {};
  const welcome = (seq) => ({ type: 'welcome', role: 'viewer', seq, session: { pages: [] }, viewers: 1,
    snapshot: { page: 1, viewport: full, blank: 'none', locked: true, ended: false }, events: [] });
  const client = new LiveClient('QWERTY', { role: 'viewer', name: 'Ola' }, env);
  const statuses = [];
  client.addEventListener('status', (e) => statuses.push(e.detail.state));
  client.connect();
  env.sockets[0].open();
  env.sockets[0].receive(welcome(3));
  env.sockets[0].receive({ type: 'page', seq: 4, page: 2 });
  // Drops that never reach a welcome: each wait is half the back-off plus random × half.
  env.randomValue = 0;
  const waits = [];
  let socket = env.sockets[0];
  for (let i = 0; i < 7; i += 1) {
    const before = env.sockets.length;
    socket.drop();
    const [wait] = env.waits();
    waits.push(wait);
    env.advance(wait - 1);
    assert.equal(env.sockets.length, before, 'opened before its back-off ended, drop ' + i);
    env.advance(1);
    assert.equal(env.sockets.length, before + 1, 'no socket when the back-off ended, drop ' + i);
    socket = env.sockets[env.sockets.length - 1];
    socket.open();
    if (i === 0) env.randomValue = 0.99999;
  }
  out.waits = waits;
  out.helloAfterDrops = socket.sent[0];
  out.statuses = statuses.slice();
  socket.receive(welcome(4));
  out.connection = client.connection;
  // After a welcome the back-off starts from the beginning again.
  env.randomValue = 0.5;
  socket.drop();
  out.waitAfterWelcome = env.waits()[0];
  // The browser says it is online again: no waiting.
  env.window.dispatchEvent(new Event('online'));
  out.socketsAfterOnline = env.sockets.length;
  out.waitsAfterOnline = env.waits();
  socket = env.sockets[env.sockets.length - 1];
  socket.open();
  out.helloOnline = socket.sent[0];
  socket.receive(welcome(4));
  // A socket that goes silent: pinged every 20 s, dropped and opened again after 45 s of silence.
  const count = env.sockets.length;
  env.advance(20000);
  out.ping = socket.sent.filter((m) => m.type === 'ping').length;
  env.advance(20000);
  out.socketsWhileSilent = env.sockets.length - count;
  env.advance(20000);
  out.socketsAfterSilence = env.sockets.length - count;
  out.silentClosed = socket.closed;
  client.close();
  out.timersAfterClose = env.waits();

  const result = plain(out);
  // random 0 for the first wait, then 0.99999: 250 ms, then the whole of 1, 2, 4, 8, 10, 10 s.
  assert.equal(result.waits[0], 250);
  assert.deepEqual(result.waits.slice(1).map((w) => Math.round(w)), [1000, 2000, 4000, 8000, 10000, 10000]);
  assert.deepEqual(result.helloAfterDrops, { type: 'hello', role: 'viewer', name: 'Ola', lastSeq: 4 },
    'a reconnect resumes from the last applied seq');
  assert.deepEqual(result.statuses, ['connecting', 'live', 'reconnecting']);
  assert.equal(result.connection, 'live');
  assert.equal(result.waitAfterWelcome, 375, 'the back-off starts again after a welcome');
  assert.deepEqual([result.socketsAfterOnline, result.waitsAfterOnline], [9, []], 'back online: reconnect at once, no wait left');
  assert.equal(result.helloOnline.lastSeq, 4);
  assert.equal(result.ping, 1, 'a ping after 20 s');
  assert.equal(result.socketsWhileSilent, 0, '40 s of silence: still the same socket');
  assert.equal(result.socketsAfterSilence, 1, 'past 45 s of silence: dropped and opened again');
  assert.ok(result.silentClosed);
  assert.deepEqual(result.timersAfterClose, [], 'close() leaves no timer behind');
});

test('commands not acknowledged go again after the welcome, once each, in the order sent', async () => {
  const env = fakeEnv();
  const out = {};
  const welcome = (seq) => ({ type: 'welcome', role: 'presenter', seq, session: { pages: [] }, viewers: 0,
    snapshot: { page: 1, viewport: full, blank: 'none', locked: true, ended: false }, events: [] });
  const client = new LiveClient('ZXCVBN', { role: 'presenter', token: 't' }, env);
  const errors = [];
  client.addEventListener('error', (e) => errors.push(e.detail));
  const rejected = [];
  client.addEventListener('rejected', (e) => rejected.push(e.detail.code));
  client.connect();
  const first = env.sockets[0];
  first.open();
  first.receive(welcome(1));
  const acks = [client.send({ type: 'goto', page: 2 }), client.send({ type: 'goto', page: 3 })];
  const sentFirst = first.sent.filter((m) => m.type === 'goto').map((m) => m.id);
  first.drop();
  // Sent while away: kept, not sent anywhere yet.
  acks.push(client.send({ type: 'goto', page: 4 }));
  out.pendingWhileAway = client.pendingCount;
  env.advance(env.waits()[0]);
  const second = env.sockets[1];
  second.open();
  out.beforeWelcome = second.sent.map((m) => m.type);
  second.receive(welcome(1));
  out.resent = second.sent.slice(1).map((m) => [m.type, m.page, m.id]);
  out.sentFirst = sentFirst;
  second.sent.slice(1).forEach((m, i) => second.receive({ type: 'ack', id: m.id, seq: 2 + i }));
  out.acks = (await Promise.all(acks)).map((a) => a.seq);
  out.pendingAfterAcks = client.pendingCount;
  // Acknowledged commands are not sent again on the next reconnect.
  second.drop();
  env.advance(env.waits()[0]);
  const third = env.sockets[2];
  third.open();
  third.receive(welcome(4));
  out.sentAfterAcked = third.sent.map((m) => m.type);
  // The server cannot store a command: it is refused, and the page's error hook hears of it.
  const refused = client.send({ type: 'goto', page: 5 }).catch((e) => e.code);
  const goto5 = third.sent[third.sent.length - 1];
  third.receive({ type: 'error', id: goto5.id, code: 'unavailable', message: 'The database is away.' });
  out.refused = await refused;
  out.rejected = rejected;
  out.errors = errors.map((e) => [e.code, e.id === goto5.id, e.hello]);
  client.close();

  const result = plain(out);
  assert.equal(result.pendingWhileAway, 3);
  assert.deepEqual(result.beforeWelcome, ['hello'], 'nothing but the hello before the welcome');
  assert.deepEqual(result.resent.map((r) => r.slice(0, 2)), [['goto', 2], ['goto', 3], ['goto', 4]]);
  assert.deepEqual(result.resent.slice(0, 2).map((r) => r[2]), result.sentFirst, 'the same ids again');
  assert.deepEqual(result.acks, [2, 3, 4]);
  assert.equal(result.pendingAfterAcks, 0);
  assert.deepEqual(result.sentAfterAcked, ['hello'], 'acknowledged commands are not sent again');
  assert.equal(result.refused, 'unavailable');
  assert.deepEqual(result.rejected, ['unavailable']);
  assert.deepEqual(result.errors, [['unavailable', true, false]], "the page's error hook hears every error");
});

test('`reconnect` with reason shutdown: back in 1-5 s with lastSeq, and the status says why', () => {
  const env = fakeEnv();
  const out = {};
  const client = new LiveClient('ASDFGH', { role: 'viewer', name: 'Kai' }, env);
  const statuses = [];
  client.addEventListener('status', (e) => statuses.push([e.detail.state, e.detail.reason || null]));
  client.connect();
  const first = env.sockets[0];
  first.open();
  first.receive({ type: 'welcome', role: 'viewer', seq: 7, session: { pages: [] }, viewers: 1,
    snapshot: { page: 3, viewport: full, blank: 'none', locked: true, ended: false } });
  env.randomValue = 0.25;
  first.receive({ type: 'reconnect', reason: 'shutdown' });
  first.drop();
  out.waits = env.waits(); // 1 s + random × 4 s
  env.advance(out.waits[0] - 1);
  out.socketsBefore = env.sockets.length;
  env.advance(1);
  out.socketsAfter = env.sockets.length;
  const second = env.sockets[1];
  second.open();
  out.hello = second.sent[0];
  second.receive({ type: 'welcome', role: 'viewer', seq: 7, session: { pages: [] }, viewers: 1,
    snapshot: { page: 3, viewport: full, blank: 'none', locked: true, ended: false }, events: [] });
  out.statuses = statuses;
  out.page = client.state.page;
  client.close();

  const result = plain(out);
  assert.deepEqual(result.waits, [2000], '1 s + random (0.25) × 4 s');
  assert.deepEqual([result.socketsBefore, result.socketsAfter], [1, 2]);
  assert.deepEqual(result.hello, { type: 'hello', role: 'viewer', name: 'Kai', lastSeq: 7 });
  assert.deepEqual(result.statuses, [['connecting', null], ['live', null], ['reconnecting', 'shutdown'], ['live', null]]);
  assert.equal(result.page, 3);
});
