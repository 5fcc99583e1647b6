#!/usr/bin/python3
"""The browser's storyboard model agrees with the core's: ``applyEdit`` of
``Public/app/storyboard/model.js``, loaded in Chromium, replays the recorded edit stream of
``Tests/Fixtures/storyboard-edits.json`` (written by
``Tests/PodiumCoreTests/StoryboardFixtureTests.swift`` from the core's ``Storyboard.apply``) and
must reach the core's content and inverse after every edit, or refuse it with the same code.
Then the client's ``Reconciler``: two editors, each applying their own edits ahead of the
server, fed the same server stream, converge to the server's content.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py storyboard_model
"""

import json
import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK

FIXTURE = harness.REPO / "Tests" / "Fixtures" / "storyboard-edits.json"

# Applies every step to the content so far (frozen deep: applyEdit must not change its input);
# answers per step the content and inverse, or the error code, and what the inverse gives back.
REPLAY_JS = """
const [stream, done] = [arguments[0], arguments[arguments.length - 1]];
const freeze = (value) => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    Object.values(value).forEach(freeze);
  }
  return value;
};
const plain = (value) => JSON.parse(JSON.stringify(value));
// JSON with sorted keys: the same content whatever order its keys were made in.
const canonical = (value) => JSON.stringify(value, (key, item) => (item && typeof item === 'object' && !Array.isArray(item)
  ? Object.fromEntries(Object.keys(item).sort().map((name) => [name, item[name]])) : item));
import('/app/storyboard/model.js').then((model) => {
  let board = freeze(plain(stream.initial));
  const results = stream.steps.map((step) => {
    try {
      const { storyboard, inverse } = model.applyEdit(board, step.edit, step.author);
      const back = model.applyEdit(storyboard, inverse, step.author).storyboard;
      const restores = canonical(back) === canonical(board);
      board = freeze(storyboard);
      return { storyboard: step.storyboard ? plain(storyboard) : undefined, inverse: plain(inverse), restores };
    } catch (error) {
      if (!(error instanceof model.StoryboardError)) return { exception: String(error && error.stack || error) };
      return { error: error.code };
    }
  });
  done({ results, final: plain(board) });
}).catch((error) => done({ failed: String(error && error.stack || error) }));
"""

# Two editors, Ann and Ben. Each applies their own edits of the stream LOOKAHEAD steps before
# the server's frame for them comes (optimistic, pending); every `edited` frame goes to both; a
# refused edit of theirs is `rejected`. Ben also renames a scene that Ann then deletes: that
# pending edit is dropped and reported. Answers both reconcilers' states after every frame.
RECONCILE_JS = """
const [fixture, lookahead, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const plain = (value) => JSON.parse(JSON.stringify(value));
import('/app/storyboard/model.js').then((model) => {
  const dropped = { ann: [], ben: [] };
  const editors = {};
  for (const who of ['ann', 'ben']) {
    editors[who] = new model.Reconciler(plain(fixture.initial), 0,
      { author: who, onDropped: (entry) => dropped[who].push(entry.id) });
  }
  const sent = { ann: new Set(), ben: new Set() };
  let ahead = 0; // frames seen with a pending edit shown before its confirmation
  const after = [];
  fixture.steps.forEach((step, index) => {
    // Each editor makes its next edits before this frame arrives (undo/redo are the server's).
    for (const later of fixture.steps.slice(index, index + lookahead)) {
      const editor = editors[later.author];
      if (later.via || sent[later.author].has(later.id)) continue;
      sent[later.author].add(later.id);
      try { editor.local(later.id, later.edit); } catch (error) { if (!error.code) throw error; }
    }
    for (const who of ['ann', 'ben']) {
      const editor = editors[who];
      if (step.error) {
        if (step.author === who) editor.rejected(step.id);
      } else {
        editor.server({ type: 'edited', seq: step.seq, author: step.author, by: step.id, edit: step.edit });
        // The same frame again changes nothing.
        if (editor.server({ type: 'edited', seq: step.seq, author: step.author, by: step.id, edit: step.edit })) {
          throw new Error('a frame was applied twice');
        }
      }
      if (editor.pending.length && JSON.stringify(editor.view) !== JSON.stringify(editor.confirmed)) ahead += 1;
    }
    after.push({ ann: plain(editors.ann.confirmed), ben: plain(editors.ben.confirmed) });
    if (step.edit.op === 'addScene' && step.edit.scene === 's3' && !step.error) {
      editors.ben.local('x1', { op: 'renameScene', scene: 's3', title: 'Coda' });
    }
  });
  done({
    after, dropped, ahead,
    final: Object.fromEntries(Object.entries(editors).map(([who, e]) => [who,
      { confirmed: plain(e.confirmed), view: plain(e.view), seq: e.seq, pending: e.pending.map((p) => p.id) }])),
  });
}).catch((error) => done({ failed: String(error && error.stack || error) }));
"""


def difference(expected, actual, path="content"):
    return harness.json_difference(expected, actual, path)


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


class StoryboardModelTests(BrowserTest):
    def run_script(self, script, *arguments):
        driver = self.driver(800, 600)
        driver.set_script_timeout(harness.WAIT)
        driver.get(SERVER.base + "/")
        answer = driver.execute_async_script(script, *arguments)
        self.assertNotIn("failed", answer, answer.get("failed"))
        return answer

    def replay(self, stream, name):
        """Replays a stream through applyEdit: the failures, at most the first."""
        answer = self.run_script(REPLAY_JS, stream)
        for index, (step, result) in enumerate(zip(stream["steps"], answer["results"])):
            where = f"{name} step {index + 1} ({step['id']}, {step['author']}, {step['edit']['op']})"
            if "exception" in result:
                return [f"{where}: {result['exception']}"]
            if "error" in step or "error" in result:
                if result.get("error") != step.get("error"):
                    return [f"{where}: the core says {step.get('error', 'applied')}, the browser {result.get('error', 'applied')}"]
                continue
            found = difference(step["inverse"], result["inverse"], "inverse")
            if "storyboard" in step:
                found = difference(step["storyboard"], result["storyboard"]) or found
            if not found and not result["restores"]:
                found = "the browser's inverse does not restore the content"
            if found:
                return [f"{where}: {found}"]  # later steps start from a wrong state
        return []

    def test_model_js_applies_every_edit_as_the_core_does(self):
        fixture = json.loads(FIXTURE.read_text())
        applied = {step["edit"]["op"] for step in fixture["steps"] if "error" not in step}
        self.assertGreaterEqual(len(applied), 20)
        failures = self.replay(fixture, "scripted")
        self.assertEqual(failures, [], "model.js disagrees with the core:\n  " + "\n  ".join(failures))

    def test_model_js_agrees_over_random_edits(self):
        stream = json.loads(FIXTURE.read_text())["random"]
        self.assertGreater(sum("storyboard" in step for step in stream["steps"]), 3)
        failures = self.replay(stream, "random")
        self.assertEqual(failures, [], "model.js disagrees with the core:\n  " + "\n  ".join(failures))

    def test_two_reconcilers_fed_the_same_stream_converge(self):
        fixture = json.loads(FIXTURE.read_text())
        steps = fixture["steps"]
        answer = self.run_script(RECONCILE_JS, fixture, 3)
        last = fixture["initial"]
        for index, (step, states) in enumerate(zip(steps, answer["after"])):
            last = step.get("storyboard", last)
            for who in ("ann", "ben"):
                found = difference(last, states[who])
                self.assertIsNone(found, f"{who}'s confirmed state after step {index + 1}: {found}")
        final = answer["final"]
        self.assertEqual(final["ann"]["seq"], max(step.get("seq", 0) for step in steps))
        for who in ("ann", "ben"):
            self.assertEqual(final[who]["pending"], [], f"{who} still has pending edits")
            self.assertIsNone(difference(final[who]["confirmed"], final[who]["view"]), f"{who}'s view is not the confirmed state")
        self.assertIsNone(difference(final["ann"]["confirmed"], final["ben"]["confirmed"]))
        # Ben's rename of the scene Ann deleted was dropped and reported; so were edits made
        # ahead that the server then refused (Ann's stroke on the layer Ben had just locked).
        self.assertIn("x1", answer["dropped"]["ben"])
        for who in ("ann", "ben"):
            refused = {step["id"] for step in steps if "error" in step and step["author"] == who}
            self.assertLessEqual(set(answer["dropped"][who]) - {"x1"}, refused, f"{who} dropped edits the server took")
        self.assertTrue(answer["dropped"]["ann"], "no pending edit was dropped")
        self.assertGreater(answer["ahead"], 5, "the editors never showed an edit before the server confirmed it")
