/**
 * A node's copy of the learned values (state/nats/learned-copy.ts): what a window hands on is what
 * the node's threads learned since the last window, never again what is still in flight (handed
 * to the fleet's writer, not yet seen stored); the view adds both until the writer's change lands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { LearnedCopy } from '../src/state/nats/learned-copy.js';
import { token } from '../src/state/nats/kv.js';
import { tempDir } from './helpers/server.js';

const KEY = `${token('kp')}.ak_copy.${token('')}`;
const plusOne = { key: KEY, fn: (old: unknown) => [((old as number[] | undefined)?.[0] ?? 0) + 1, ((old as number[] | undefined)?.[1] ?? 0) + 0.5] };

test('a window sends only what is new; the sum in flight is added to the view until the writer stores it', async () => {
  const copy = new LearnedCopy(path.join(tempDir(), 'learned'), true);
  try {
    copy.addPending([plusOne, plusOne]);
    assert.deepEqual(copy.takePending().map((s) => s.delta), [[2, 1]]);
    // Handed on, not yet stored: three more merges in the next window.
    copy.addPending([plusOne, plusOne, plusOne]);
    assert.deepEqual(copy.view(KEY), [5, 2.5], 'the view holds the sum in flight and the new one');
    assert.deepEqual(copy.takePending().map((s) => s.delta), [[3, 1.5]], 'the second window sends its own three, not five');
    assert.deepEqual(copy.takePending(), [], 'nothing new: nothing sent');
    // The writer stored both windows' sums and says so.
    copy.apply([{ key: KEY, revision: 7, value: [5, 2.5] }], [KEY]);
    assert.deepEqual(copy.view(KEY), [5, 2.5]);
  } finally {
    await copy.close(true);
  }
});
