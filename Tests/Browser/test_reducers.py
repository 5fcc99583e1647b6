#!/usr/bin/python3
"""The browser's reducer agrees with the server's: ``applyEvent`` of ``Public/app/live.js``,
loaded in Chromium, replays the recorded event streams of ``Tests/Fixtures/event-stream.json``
(written by ``Tests/PodiumCoreTests/EventStreamFixtureTests.swift`` from the core's own
``SessionSnapshot.apply``) and must reach the core's snapshot after every event.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py reducers
"""

import json
import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for

FIXTURE = harness.REPO / "Tests" / "Fixtures" / "event-stream.json"

# Starts as LiveClient.onWelcome does ({...emptyState(), ...snapshot}), then applies each event;
# answers the state after each one, or the error that stopped it.
REPLAY_JS = """
const [streams, done] = [arguments[0], arguments[arguments.length - 1]];
import('/app/live.js').then((live) => {
  const results = streams.map((stream) => {
    let state = { ...live.emptyState(), ...stream.initial };
    return stream.events.map((event) => {
      state = live.applyEvent(state, event);
      return JSON.parse(JSON.stringify(state));
    });
  });
  done({ results });
}).catch((error) => done({ error: String(error && error.stack || error) }));
"""


def difference(expected, actual, path="snapshot"):
    return harness.json_difference(expected, actual, path)

def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


class ReducerTests(BrowserTest):
    def test_live_js_applies_every_event_as_the_server_does(self):
        fixture = json.loads(FIXTURE.read_text())
        streams = fixture["streams"]
        kinds = {event["type"] for stream in streams for event in stream["events"]}
        self.assertGreaterEqual(len(kinds), 23, f"the fixture covers only {sorted(kinds)}")
        driver = self.driver(800, 600)
        driver.set_script_timeout(harness.WAIT)
        driver.get(SERVER.base + "/")
        answer = driver.execute_async_script(REPLAY_JS, streams)
        self.assertNotIn("error", answer, answer.get("error"))
        failures = []
        for stream, states in zip(streams, answer["results"]):
            for index, (event, expected, actual) in enumerate(zip(stream["events"], stream["snapshots"], states)):
                found = difference(expected, actual)
                if found:
                    failures.append(f"{stream['name']}, event {index + 1} ({event['type']}, seq {event['seq']}): {found}")
                    break  # later events of this stream start from a wrong state
        self.assertEqual(failures, [], "live.js disagrees with the server:\n  " + "\n  ".join(failures))
