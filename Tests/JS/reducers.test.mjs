// The browser's reducer agrees with the server's: `applyEvent` of Public/app/live/live.js replays the
// recorded event streams of Tests/Fixtures/event-stream.json (written by
// Tests/PodiumCoreTests/EventStreamFixtureTests.swift from the core's own SessionSnapshot.apply)
// and must reach the core's snapshot after every event.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app, fixture, jsonDifference, plain } from './support.mjs';

test('live.js applies every event as the server does', async () => {
  const live = await app('live/live.js');
  const { streams } = fixture('event-stream.json');
  const kinds = new Set(streams.flatMap((stream) => stream.events.map((event) => event.type)));
  assert.ok(kinds.size >= 23, `the fixture covers only ${[...kinds].sort()}`);
  const failures = [];
  for (const stream of streams) {
    // Starts as LiveClient.onWelcome does ({...emptyState(), ...snapshot}), then applies each event.
    let state = { ...live.emptyState(), ...stream.initial };
    const states = stream.events.map((event) => {
      state = live.applyEvent(state, event);
      return plain(state);
    });
    const count = Math.min(stream.events.length, stream.snapshots.length, states.length);
    for (let index = 0; index < count; index += 1) {
      const event = stream.events[index];
      const found = jsonDifference(stream.snapshots[index], states[index], 'snapshot');
      if (found) {
        failures.push(`${stream.name}, event ${index + 1} (${event.type}, seq ${event.seq}): ${found}`);
        break; // later events of this stream start from a wrong state
      }
    }
  }
  assert.deepEqual(failures, [], 'live.js disagrees with the server:\n  ' + failures.join('\n  '));
});
