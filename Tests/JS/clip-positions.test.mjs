// Every screen keeps a trimmed or looping clip where the server does: Public/app/media/video-sync.js's
// referencePosition and shouldPlay must give the positions and ends of Tests/Fixtures/clip-positions.json
// (written by Tests/PodiumCoreTests/ClipTrimLoopTests.swift from the core's Playback.position(at:)).
import assert from 'node:assert/strict';
import test from 'node:test';
import { app, fixture } from './support.mjs';

const { referencePosition, shouldPlay } = await app('media/video-sync.js');
const { cases } = fixture('clip-positions.json');

test('referencePosition is the core position of every trimmed and looping case', () => {
  assert.ok(cases.length > 100);
  for (const { playback, now, position } of cases) {
    const actual = referencePosition(playback, now);
    assert.ok(Math.abs(actual - position) <= 1e-9, `${JSON.stringify(playback)} at ${now}: Swift ${position}, JavaScript ${actual}`);
  }
});

test('shouldPlay is playing, started and not ended, as the core says', () => {
  for (const { playback, now, ended } of cases) {
    const expected = playback.state === 'playing' && now >= playback.anchor && !ended;
    assert.equal(shouldPlay(playback, now), expected, `${JSON.stringify(playback)} at ${now}`);
  }
});
