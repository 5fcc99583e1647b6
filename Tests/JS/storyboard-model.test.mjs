// The browser's storyboard model agrees with the core's: `applyEdit` of
// Public/app/storyboard/model.js replays the recorded edit stream of
// Tests/Fixtures/storyboard-edits.json (written by Tests/PodiumCoreTests/StoryboardFixtureTests.swift
// from the core's Storyboard.apply) and must reach the core's content and inverse after every
// edit, or refuse it with the same code. Then the client's Reconciler: two editors, each applying
// their own edits ahead of the server, fed the same server stream, converge to the server's content.
import assert from 'node:assert/strict';
import test from 'node:test';
import { app, fixture, jsonDifference, plain } from './support.mjs';

const model = await app('storyboard/model.js');

const difference = (expected, actual, path = 'content') => jsonDifference(expected, actual, path);

const freeze = (value) => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    Object.values(value).forEach(freeze);
  }
  return value;
};
// JSON with sorted keys: the same content whatever order its keys were made in.
const canonical = (value) => JSON.stringify(value, (key, item) => (item && typeof item === 'object' && !Array.isArray(item)
  ? Object.fromEntries(Object.keys(item).sort().map((name) => [name, item[name]])) : item));

/** Applies every step to the content so far (frozen deep: applyEdit must not change its input):
 * per step the content and inverse, or the error code, and whether the inverse gives it back. */
function replayResults(stream) {
  let board = freeze(plain(stream.initial));
  return stream.steps.map((step) => {
    try {
      const { storyboard, inverse } = model.applyEdit(board, step.edit, step.author);
      const back = model.applyEdit(storyboard, inverse, step.author).storyboard;
      const restores = canonical(back) === canonical(board);
      board = freeze(storyboard);
      return plain({ storyboard: step.storyboard ? plain(storyboard) : undefined, inverse: plain(inverse), restores });
    } catch (error) {
      if (!(error instanceof model.StoryboardError)) return { exception: String((error && error.stack) || error) };
      return { error: error.code };
    }
  });
}

/** Replays a stream through applyEdit: the failures, at most the first. */
function replay(stream, name) {
  const results = replayResults(stream);
  for (const [index, step] of stream.steps.entries()) {
    const result = results[index];
    const where = `${name} step ${index + 1} (${step.id}, ${step.author}, ${step.edit.op})`;
    if ('exception' in result) return [`${where}: ${result.exception}`];
    if ('error' in step || 'error' in result) {
      if (result.error !== step.error) {
        return [`${where}: the core says ${step.error ?? 'applied'}, the browser ${result.error ?? 'applied'}`];
      }
      continue;
    }
    let found = difference(step.inverse, result.inverse, 'inverse');
    if ('storyboard' in step) found = difference(step.storyboard, result.storyboard) || found;
    if (!found && !result.restores) found = "the browser's inverse does not restore the content";
    if (found) return [`${where}: ${found}`]; // later steps start from a wrong state
  }
  return [];
}

test('model.js applies every edit as the core does', () => {
  const edits = fixture('storyboard-edits.json');
  const applied = new Set(edits.steps.filter((step) => !('error' in step)).map((step) => step.edit.op));
  assert.ok(applied.size >= 20, `only ${applied.size} kinds of edit applied`);
  const failures = replay(edits, 'scripted');
  assert.deepEqual(failures, [], 'model.js disagrees with the core:\n  ' + failures.join('\n  '));
});

test('model.js agrees over random edits', () => {
  const stream = fixture('storyboard-edits.json').random;
  assert.ok(stream.steps.filter((step) => 'storyboard' in step).length > 3);
  const failures = replay(stream, 'random');
  assert.deepEqual(failures, [], 'model.js disagrees with the core:\n  ' + failures.join('\n  '));
});

// Two editors, Ann and Ben. Each applies their own edits of the stream `lookahead` steps before
// the server's frame for them comes (optimistic, pending); every `edited` frame goes to both; a
// refused edit of theirs is `rejected`. Ben also renames a scene that Ann then deletes: that
// pending edit is dropped and reported. Answers both reconcilers' states after every frame.
function reconcile(edits, lookahead) {
  const dropped = { ann: [], ben: [] };
  const editors = {};
  for (const who of ['ann', 'ben']) {
    editors[who] = new model.Reconciler(plain(edits.initial), 0,
      { author: who, onDropped: (entry) => dropped[who].push(entry.id) });
  }
  const sent = { ann: new Set(), ben: new Set() };
  let ahead = 0; // frames seen with a pending edit shown before its confirmation
  const after = [];
  edits.steps.forEach((step, index) => {
    // Each editor makes its next edits before this frame arrives (undo/redo are the server's).
    for (const later of edits.steps.slice(index, index + lookahead)) {
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
  return plain({
    after, dropped, ahead,
    final: Object.fromEntries(Object.entries(editors).map(([who, e]) => [who,
      { confirmed: plain(e.confirmed), view: plain(e.view), seq: e.seq, pending: e.pending.map((p) => p.id) }])),
  });
}

test('two reconcilers fed the same stream converge', () => {
  const edits = fixture('storyboard-edits.json');
  const { steps } = edits;
  const answer = reconcile(edits, 3);
  let last = edits.initial;
  steps.forEach((step, index) => {
    const states = answer.after[index];
    if (!states) return;
    last = step.storyboard ?? last;
    for (const who of ['ann', 'ben']) {
      const found = difference(last, states[who]);
      assert.equal(found, null, `${who}'s confirmed state after step ${index + 1}: ${found}`);
    }
  });
  const { final } = answer;
  assert.equal(final.ann.seq, Math.max(...steps.map((step) => step.seq ?? 0)));
  for (const who of ['ann', 'ben']) {
    assert.deepEqual(final[who].pending, [], `${who} still has pending edits`);
    assert.equal(difference(final[who].confirmed, final[who].view), null, `${who}'s view is not the confirmed state`);
  }
  assert.equal(difference(final.ann.confirmed, final.ben.confirmed), null);
  // Ben's rename of the scene Ann deleted was dropped and reported; so were edits made ahead
  // that the server then refused (Ann's stroke on the layer Ben had just locked).
  assert.ok(answer.dropped.ben.includes('x1'));
  for (const who of ['ann', 'ben']) {
    const refused = new Set(steps.filter((step) => 'error' in step && step.author === who).map((step) => step.id));
    const unexpected = answer.dropped[who].filter((id) => id !== 'x1' && !refused.has(id));
    assert.deepEqual(unexpected, [], `${who} dropped edits the server took`);
  }
  assert.ok(answer.dropped.ann.length > 0, 'no pending edit was dropped');
  assert.ok(answer.ahead > 5, 'the editors never showed an edit before the server confirmed it');
});
