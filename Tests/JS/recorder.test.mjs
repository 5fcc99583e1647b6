// The recorder's upload queue (Public/app/media/recorder-queue.js, issue #44): chunks go up one at a
// time in order; a lost connection or a 5xx is tried again until acknowledged (nothing lost, no
// chunk sent out of order); a chunk the server already has (its answer was lost) is skipped; a
// refusal stops the queue and is said once. And the on-air indicator's time.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app } from './support.mjs';

const { ChunkQueue, elapsedText } = await app('media/recorder-queue.js');

const networkError = () => Object.assign(new Error('offline'), { status: 0, code: 'network' });
const refusal = (status, code, detail = null) => Object.assign(new Error(code), { status, code, detail });

test('chunks are sent in order and retried until acknowledged', async () => {
  const sent = [];
  const taken = [];
  let failures = 3; // the connection drops for the first three tries of chunk 1
  const queue = new ChunkQueue(async (n, blob) => {
    sent.push(n);
    if (n === 1 && failures > 0) {
      failures -= 1;
      throw failures === 0 ? refusal(503, 'unavailable') : networkError();
    }
    taken.push([n, blob]);
  }, { wait: () => Promise.resolve() });
  for (const blob of ['a', 'b', 'c', 'd']) queue.push(blob);
  await queue.drained();
  assert.deepEqual(taken, [[0, 'a'], [1, 'b'], [2, 'c'], [3, 'd']]);
  assert.deepEqual(sent, [0, 1, 1, 1, 1, 2, 3]);
  assert.equal(queue.pending.length, 0);
  assert.equal(queue.failed, null);
});

test('a chunk the server already has is skipped; a refusal stops the queue once', async () => {
  const taken = [];
  const fatal = [];
  const queue = new ChunkQueue(async (n) => {
    if (n === 0) throw refusal(409, 'chunk_out_of_order', { expected: 1 }); // its answer was lost
    if (n === 2) throw refusal(409, 'recording_stopped');
    taken.push(n);
  }, { wait: () => Promise.resolve(), onFatal: (error) => fatal.push(error.code) });
  for (const blob of ['a', 'b', 'c', 'd']) queue.push(blob);
  await queue.drained();
  assert.deepEqual(taken, [1]);
  assert.deepEqual(fatal, ['recording_stopped']);
  queue.push('e'); // nothing more after a refusal
  await queue.drained();
  assert.deepEqual(taken, [1]);
  assert.deepEqual(fatal, ['recording_stopped']);
});

test('a retry waits longer each time, at most 8 s, and comes at once when the browser is online again', async () => {
  const waits = [];
  let release = null;
  let tries = 0;
  const queue = new ChunkQueue(async () => {
    tries += 1;
    if (tries < 7) throw networkError();
  }, { wait: (ms) => { waits.push(ms); return tries < 6 ? Promise.resolve() : new Promise((resolve) => { release = resolve; }); } });
  queue.push('a');
  const done = queue.drained();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(typeof release, 'function');
  queue.retryNow(); // `online`: tried again without waiting out the delay
  await done;
  assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 8000]);
  assert.equal(tries, 7);
});

test('the time on air', () => {
  assert.equal(elapsedText(0), '0:00');
  assert.equal(elapsedText(5.9), '0:05');
  assert.equal(elapsedText(61), '1:01');
  assert.equal(elapsedText(3600 + 62), '1:01:02');
});
