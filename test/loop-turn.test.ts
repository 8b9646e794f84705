import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { turningLoop } from '../src/pipeline/loop-turn.js';

test('a detection worker turns its event loop once the turn interval has passed, and its timers then fire', async () => {
  let clock = 0;
  const run = turningLoop((x: number) => x * 2, 200, () => clock);
  let fired = 0;
  setTimeout(() => fired++, 0);
  const setAt = performance.now();
  clock = 150;
  assert.equal(run(1), 2, 'within the interval: the plain result, no turn');
  // As in a worker, the timer was set a while before the turn (lmdb-js's, during earlier tasks):
  // it is due. Node runs a 0 ms timer after 1 ms; the thread spins until then without turning its loop.
  while (performance.now() - setAt <= 1.5);
  clock = 210;
  const turned = run(2);
  assert.ok(turned instanceof Promise, 'past the interval: the result after a turn of the loop');
  assert.equal(await turned, 4);
  assert.equal(fired, 1, 'the pending timer ran during the turn');
  clock = 300;
  assert.equal(run(3), 6, 'the interval counts from the last turn');
});
