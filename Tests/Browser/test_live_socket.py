#!/usr/bin/python3
"""The storyboard editor's use of the browser's one reconnecting socket
(``Public/app/live/socket.js`` through ``storyboard/connection.js`` and ``StoryDoc``), driven
deterministically: each test hands the client a fake ``WebSocket``, fake timers and a fake clock
(``FAKE_ENV_JS`` of the harness, from ``Tests/JS/fake-env.mjs``), opens and drops sockets itself
and moves time on by hand, so a reconnect happens exactly when the test says and nothing races a
real timer.

- the storyboard editor resumes: its hello carries ``lastSeq``, the welcome's ``missed`` edits are
  applied to the content it holds (not replacing it), and an edit answered ``retry`` is sent
  again with the same id, unseen by the person;
- the same against the real server.

The socket's own rules as the live pages' ``live.js`` uses it (back-off, resend, shutdown, the
protocol's order and gaps) need no page: they run under ``node --test``
(``Tests/JS/live-socket.test.mjs``, ``make test-js``). ``storyboard/connection.js`` imports the
page's ``i18n.js``, which reads the document as it loads, so its tests stay here: the modules are
imported into a page the test server serves (``/``). Alone:
    python3 Tests/Browser/run_browser_tests.py live_socket
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
FAKE_ENV_JS = harness.FAKE_ENV_JS

STORYBOARD_JS = r"""
const done = arguments[arguments.length - 1];
""" + FAKE_ENV_JS + r"""
(async () => {
  const { StoryDoc } = await import('/app/storyboard/doc.js');
  const env = fakeEnv();
  const out = {};
  const layer = (strokes) => ({ id: 'ly_1', name: 'Layer 1', visible: true, locked: false, opacity: 1,
    transform: { x: 0, y: 0, scale: 1, rotation: 0 }, strokes });
  const board = (strokes, dialogue = '') => ({ scenes: [{ id: 'sc_1', title: 'Scene 1', shots: [
    { id: 'sh_1', number: '1', duration: 3, dialogue, action: '', notes: '', background: '#ffffff', layers: [layer(strokes)] }] }] });
  const stroke = (id, author) => ({ id, author, tool: 'pen', color: '#222222', width: 0.004, points: [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]] });
  const add = (id) => ({ op: 'addStrokes', shot: 'sh_1', layer: 'ly_1', strokes: [stroke(id, 'u_1')] });
  const you = { editor: 1, userId: 'u_1', name: 'Ada', color: '#e8590c' };
  const doc = new StoryDoc('sb_1', { author: 'u_1', ...env });
  const dropped = [];
  doc.addEventListener('dropped', (e) => dropped.push(e.detail));
  const saves = [];
  doc.addEventListener('save', (e) => saves.push(e.detail.state));
  const strokesOf = () => doc.view.scenes[0].shots[0].layers[0].strokes.map((s) => s.id);
  doc.connect();
  const first = env.sockets[0];
  out.url = first.url;
  first.open();
  out.hello1 = first.sent[0];
  first.receive({ type: 'welcome', seq: 4, storyboard: board([]), you, editors: [you] });
  const e1 = doc.edit(add('st-1'));
  first.receive({ type: 'edited', seq: 5, author: 'u_1', by: e1, edit: add('st-1') });
  first.receive({ type: 'ack', id: e1, seq: 5 });
  const e2 = doc.edit(add('st-2')); // sent, never answered on this socket
  first.drop();
  env.advance(env.waits()[0]);
  const second = env.sockets[1];
  second.open();
  out.hello2 = second.sent[0];
  // The server stored e2 and someone else's edit meanwhile: the welcome brings both in `missed`.
  // Its `storyboard` is left out here so that the content can only come from what the page held.
  const other = { op: 'updateShot', shot: 'sh_1', dialogue: 'Hold on!' };
  second.receive({ type: 'welcome', seq: 7, you, editors: [you], missed: [
    { type: 'edited', seq: 6, author: 'u_2', by: 'x-1', edit: other },
    { type: 'edited', seq: 7, author: 'u_1', by: e2, edit: add('st-2') }] });
  out.afterResume = { seq: doc.seq, strokes: strokesOf(), dialogue: doc.view.scenes[0].shots[0].dialogue };
  // e2 had no ack: sent again once, same id; the server acknowledges it with the seq it has.
  out.resent = second.sent.slice(1).map((m) => [m.type, m.id === e2]);
  second.receive({ type: 'ack', id: e2, seq: 7 });
  // An edit answered `retry`: sent again with the same id, a moment later, unseen by the person.
  const e3 = doc.edit(add('st-3'));
  second.receive({ type: 'error', id: e3, code: 'retry', message: 'Others edited at the same moment. Send this edit again.' });
  out.saveWhileRetrying = doc.conn.saveState;
  out.retryWaits = env.waits().filter((w) => w < 1000);
  env.advance(100);
  out.e3Sent = second.sent.filter((m) => m.id === e3).length;
  second.receive({ type: 'edited', seq: 8, author: 'u_1', by: e3, edit: add('st-3') });
  second.receive({ type: 'ack', id: e3, seq: 8 });
  out.final = { seq: doc.seq, strokes: strokesOf(), save: doc.conn.saveState, pending: doc.conn.pendingCount };
  out.dropped = dropped.map((d) => d.code);
  // A welcome whose `missed` does not reach its seq (the server had too many): the snapshot wins.
  second.drop();
  env.advance(env.waits()[0]);
  const third = env.sockets[2];
  third.open();
  out.hello3 = third.sent[0];
  third.receive({ type: 'welcome', seq: 12, storyboard: board([stroke('st-9', 'u_2')]), you, editors: [you] });
  out.afterSnapshot = { seq: doc.seq, strokes: strokesOf() };
  doc.close();
  done(out);
})().catch((error) => done({ error: String(error && error.stack || error) }));
"""


# The storyboard editor against the real server: editor A's socket is closed under it while B
# edits; A's reconnect waits on A's fake clock (its sockets are real), so B's edits are surely
# stored before A comes back, with lastSeq, and gets them as `missed`.
SERVER_RESUME_JS = r"""
const [storyboardId, token, shot, layer, done] = arguments;
""" + FAKE_ENV_JS + r"""
(async () => {
  const { StoryDoc } = await import('/app/storyboard/doc.js');
  const until = async (test, what) => {
    const end = Date.now() + 15000;
    while (!test()) {
      if (Date.now() > end) throw new Error('timed out waiting for ' + what);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const out = {};
  const envA = fakeEnv();
  const socketsA = [];
  envA.WebSocket = class extends WebSocket {
    constructor(url) { super(url); this.sentFrames = []; socketsA.push(this); }
    send(text) { this.sentFrames.push(JSON.parse(text)); super.send(text); }
  };
  const stroke = (id) => ({ op: 'addStrokes', shot, layer, strokes: [{ id, tool: 'pen', color: '#222222', width: 0.004, points: [[0.1, 0.2, 0.5], [0.3, 0.4, 0.6]] }] });
  const strokesOf = (doc) => doc.view.scenes.flatMap((sc) => sc.shots).find((s) => s.id === shot).layers.find((l) => l.id === layer).strokes.map((s) => s.id);
  const a = new StoryDoc(storyboardId, { author: 'admin', token, ...envA });
  const welcomes = [];
  a.conn.addEventListener('welcome', (e) => welcomes.push({ resumed: e.detail.resumed, missed: e.detail.missed ? e.detail.missed.map((f) => f.seq) : null }));
  a.connect();
  await until(() => a.view && a.conn.state === 'live', 'editor A');
  const b = new StoryDoc(storyboardId, { author: 'admin', token });
  b.connect();
  await until(() => b.view && b.conn.state === 'live', 'editor B');
  a.edit(stroke('st-a'));
  await until(() => a.conn.pendingCount === 0 && b.seq === a.seq, 'A\'s stroke stored and seen by B');
  const seqBefore = a.seq;
  socketsA[0].close();
  await until(() => a.conn.state === 'offline', 'A offline');
  b.edit(stroke('st-b'));
  b.edit({ op: 'updateShot', shot, dialogue: 'While you were away' });
  // An ack can come before the `edited` frame that moves B's seq: wait for both.
  await until(() => b.conn.pendingCount === 0 && b.seq >= seqBefore + 2, 'B\'s edits stored and seen by B');
  out.seqB = b.seq;
  envA.advance(10000); // A's back-off ends: a real socket again
  await until(() => a.conn.state === 'live' && a.seq === b.seq, 'A back, caught up');
  out.hello = socketsA[1].sentFrames[0];
  out.seqBefore = seqBefore;
  out.welcomes = welcomes;
  out.strokesA = strokesOf(a);
  out.strokesB = strokesOf(b);
  out.dialogueA = a.view.scenes.flatMap((sc) => sc.shots).find((s) => s.id === shot).dialogue;
  a.close();
  b.close();
  done(out);
})().catch((error) => done({ error: String(error && error.stack || error) }));
"""


def setUpModule():
    if not harness.DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


class LiveSocketTests(BrowserTest):
    def run_script(self, script):
        driver = self.driver(800, 600)
        driver.get(SERVER.base + "/")
        driver.set_script_timeout(30)
        result = driver.execute_async_script(script)
        self.assertNotIn("error", result, result.get("error"))
        return result

    def test_live_socket_storyboard_resume_and_retry(self):
        """The storyboard editor resumes with lastSeq and `missed`, and sends an edit again on `retry`."""
        result = self.run_script(STORYBOARD_JS)
        self.assertTrue(result["url"].endswith("/api/v1/storyboards/sb_1/live"), result["url"])
        self.assertEqual(result["hello1"], {"type": "hello"}, "a first hello has no lastSeq")
        self.assertEqual(result["hello2"], {"type": "hello", "lastSeq": 5}, "a reconnect sends the seq of the content held")
        self.assertEqual(result["afterResume"], {"seq": 7, "strokes": ["st-1", "st-2"], "dialogue": "Hold on!"},
                         "the missed edits are applied to the content held")
        self.assertEqual(result["resent"], [["edit", True]], "the unacknowledged edit is sent again once, same id")
        self.assertEqual(result["saveWhileRetrying"], "saving", "a retried edit is still being saved, not refused")
        self.assertEqual(len(result["retryWaits"]), 1)
        self.assertTrue(50 <= result["retryWaits"][0] <= 100, result["retryWaits"])
        self.assertEqual(result["e3Sent"], 2, "sent again with the same id")
        self.assertEqual(result["final"], {"seq": 8, "strokes": ["st-1", "st-2", "st-3"], "save": "saved", "pending": 0})
        self.assertEqual(result["dropped"], [], "nothing the person sees as lost")
        self.assertEqual(result["hello3"], {"type": "hello", "lastSeq": 8})
        self.assertEqual(result["afterSnapshot"], {"seq": 12, "strokes": ["st-9"]}, "a welcome without missed replaces the content")

    def test_live_socket_storyboard_resume_on_server(self):
        """A real server: an editor whose socket dropped while another edited comes back with
        lastSeq and takes the edits it missed from the welcome's `missed`."""
        status, created = SERVER.api("POST", "/api/v1/storyboards", {"title": "Resume", "aspectRatio": "16:9"})
        self.assertEqual(status, 201, created)
        shot = created["content"]["scenes"][0]["shots"][0]
        driver = self.driver(800, 600)
        driver.get(SERVER.base + "/")
        driver.set_script_timeout(30)
        result = driver.execute_async_script(SERVER_RESUME_JS, created["id"], SERVER.token, shot["id"], shot["layers"][0]["id"])
        self.assertNotIn("error", result, result.get("error"))
        self.assertEqual(result["hello"], {"type": "hello", "token": SERVER.token, "lastSeq": result["seqBefore"]})
        self.assertEqual(result["welcomes"], [
            {"resumed": False, "missed": None},
            {"resumed": True, "missed": [result["seqBefore"] + 1, result["seqBefore"] + 2]},
        ], "the second welcome brought the two edits missed")
        self.assertEqual(result["seqB"], result["seqBefore"] + 2)
        self.assertEqual(result["strokesA"], ["st-a", "st-b"])
        self.assertEqual(result["strokesA"], result["strokesB"])
        self.assertEqual(result["dialogueA"], "While you were away")
