// The browser outlines storyboard strokes as the server does: Public/app/storyboard/freehand.js
// must give the outlines, tool options and simplified strokes of Tests/Fixtures/stroke-outlines.json
// (written by Tests/PodiumCoreTests/StrokeOutlineTests.swift from the core's StrokeOutline).
// (drawStroke, which paints a canvas, is tested in Chromium: Tests/Browser/test_freehand.py.)
import assert from 'node:assert/strict';
import test from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { app, fixture, plain } from './support.mjs';

const RELATIVE = 1e-9;

const close = (expected, actual) => Math.abs(expected - actual) <= RELATIVE * Math.max(Math.abs(expected), Math.abs(actual), 1.0);

/** The first place where two lists of points differ beyond the tolerance, or null. */
function pointDifference(expected, actual, path) {
  if (expected.length !== actual.length) return `${path}: ${expected.length} points from Swift, ${actual.length} from JavaScript`;
  for (let index = 0; index < expected.length; index += 1) {
    const [left, right] = [expected[index], actual[index]];
    const message = `${path}[${index}]: Swift ${JSON.stringify(left)}, JavaScript ${JSON.stringify(right)}`;
    if (left.length !== right.length) return message;
    if (left.some((a, i) => !close(a, right[i]))) return message;
  }
  return null;
}

/** The largest relative difference between two lists of points of the same shape. */
function largestDifference(expected, actual) {
  let worst = 0;
  expected.forEach((left, index) => left.forEach((a, i) => {
    const b = actual[index][i];
    worst = Math.max(worst, Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1.0));
  }));
  return worst;
}

test('freehand.js outlines strokes as the server does', async (t) => {
  const freehand = await app('storyboard/freehand.js');
  const cases = fixture('stroke-outlines.json');
  assert.ok(cases.outlines.length >= 15);
  const answer = plain({
    outlines: cases.outlines.map((c) => freehand.strokeOutline(c.points, c.options)),
    tools: cases.tools.map((c) => freehand.toolOptions(c.tool, c.width, c.points === null ? undefined : c.points)),
    simplified: cases.simplified.map((c) => freehand.simplify(c.points, c.tolerance)),
  });
  const failures = [];
  let worst = 0;
  cases.outlines.forEach((c, index) => {
    const found = pointDifference(c.outline, answer.outlines[index], `outline of '${c.name}'`);
    if (found) failures.push(found);
    else worst = Math.max(worst, largestDifference(c.outline, answer.outlines[index]));
  });
  cases.tools.forEach((c, index) => {
    const expected = Object.fromEntries(Object.entries(c.options).filter(([key]) => key !== 'last'));
    const options = answer.tools[index];
    if (!isDeepStrictEqual(options, expected)) {
      failures.push(`options of '${c.tool}': Swift ${JSON.stringify(expected)}, JavaScript ${JSON.stringify(options)}`);
    }
  });
  cases.simplified.forEach((c, index) => {
    const found = pointDifference(c.simplified, answer.simplified[index], `simplified '${c.name}'`);
    if (found) failures.push(found);
  });
  assert.deepEqual(failures, [], 'freehand.js disagrees with the server:\n  ' + failures.join('\n  '));
  t.diagnostic(`largest relative difference from Swift ${worst.toExponential(1)}`);
});
