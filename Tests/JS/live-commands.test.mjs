// How the pages that drive a live session send commands (Public/app/live/commands.js): the
// console, a room's moderator and presenter pages each wrote this once; now it is one module, and
// these tests hold its rules: <body data-pending> counts what is unanswered, the page takes the
// server's state after every answer, an accepted, refused or `ended` answer goes to the page's
// hook, and an ink command's refusal comes back in the page's words when it has them.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app } from './support.mjs';

globalThis.document ??= { body: { dataset: {} } };
const { liveCommands, markPending } = await app('live/commands.js');

/** A live client whose commands wait until the test answers them. */
function fakeLive() {
  const answers = [];
  return {
    pendingCount: 0,
    sent: [],
    answers,
    send(command) {
      this.sent.push(command);
      this.pendingCount += 1;
      return new Promise((resolve, reject) => {
        answers.push({
          ok: (ack) => { this.pendingCount -= 1; resolve(ack); },
          fail: (error) => { this.pendingCount -= 1; reject(error); },
        });
      });
    },
  };
}

function page(live, more = {}) {
  const seen = { reconciled: 0, accepted: [], refused: [], ended: 0, pendingAtReconcile: [] };
  const commands = liveCommands({
    live: () => live,
    closed: () => Boolean(more.closed),
    reconcile: () => {
      markPending(live);
      seen.reconciled += 1;
      seen.pendingAtReconcile.push(document.body.dataset.pending);
    },
    accepted: (ack) => seen.accepted.push(ack),
    refused: (error) => seen.refused.push(error.code),
    ...(more.ended ? { ended: () => { seen.ended += 1; } } : {}),
    ...(more.errorText ? { errorText: more.errorText } : {}),
  });
  return { commands, seen };
}

test('send counts the command on <body data-pending>, then takes the state once it is answered', async () => {
  const live = fakeLive();
  const { commands, seen } = page(live);
  const sent = commands.send({ type: 'goto', page: 2 });
  assert.equal(document.body.dataset.pending, '1');
  assert.equal(seen.reconciled, 0);
  live.answers[0].ok({ seq: 7 });
  assert.deepEqual(await sent, { seq: 7 });
  assert.deepEqual(seen.accepted, [{ seq: 7 }]);
  assert.deepEqual(seen.pendingAtReconcile, ['0']);
  assert.deepEqual(live.sent, [{ type: 'goto', page: 2 }]);
});

test('a refusal goes to the page and resolves null; `ended` goes to its own hook when the page has one', async () => {
  const live = fakeLive();
  const { commands, seen } = page(live, { ended: true });
  const refused = commands.send({ type: 'goto', page: 9 });
  live.answers[0].fail({ code: 'unavailable', message: 'x' });
  assert.equal(await refused, null);
  const ended = commands.send({ type: 'goto', page: 3 });
  live.answers[1].fail({ code: 'ended', message: '' });
  assert.equal(await ended, null);
  assert.deepEqual(seen.refused, ['unavailable']);
  assert.equal(seen.ended, 1);
  assert.equal(seen.reconciled, 2);
  // Without an `ended` hook (a room's presenter), `ended` is a refusal like any other.
  const other = page(live);
  const again = other.commands.send({ type: 'request' });
  live.answers[2].fail({ code: 'ended', message: '' });
  await again;
  assert.deepEqual(other.seen.refused, ['ended']);
});

test('nothing is sent once the session is over', async () => {
  const live = fakeLive();
  const { commands } = page(live, { closed: true });
  assert.equal(await commands.send({ type: 'goto', page: 2 }), null);
  await assert.rejects(commands.sendForResult({ type: 'ink' }), { code: 'ended' });
  assert.deepEqual(live.sent, []);
});

test('sendForResult hands the outcome back, the refusal in the page\'s words when it has them', async () => {
  const live = fakeLive();
  const words = page(live, { errorText: (error) => 'said: ' + error.code, ended: true });
  const ink = words.commands.sendForResult({ type: 'ink' });
  live.answers[0].fail({ code: 'rate_limited', message: 'raw' });
  await assert.rejects(ink, { code: 'rate_limited', message: 'said: rate_limited' });
  const raw = page(live);
  const stroke = raw.commands.sendForResult({ type: 'ink' });
  live.answers[1].fail({ code: 'rate_limited', message: 'raw' });
  await assert.rejects(stroke, { code: 'rate_limited', message: 'raw' });
  const done = words.commands.sendForResult({ type: 'ink' });
  live.answers[2].ok({ seq: 3 });
  assert.deepEqual(await done, { seq: 3 });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(words.seen.reconciled, 2);
  assert.deepEqual(words.seen.accepted, [], 'an ink command is not a `send`: the page hears its outcome itself');
});
