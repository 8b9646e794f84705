/**
 * apps/in-flight.ts: an erase waits for the app's requests that started before it, not for
 * itself, not for the ones that start after it, and not for another app's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlight } from '../src/apps/in-flight.js';

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => { done = true; });
  await new Promise((r) => setImmediate(r));
  return done;
};

test('startedBefore waits for the earlier requests of its app only', async () => {
  const f = new InFlight();
  const early = {}, other = {}, erase = {}, late = {};
  f.enter('a', early);
  f.enter('b', other);
  f.enter('a', erase);
  f.enter('a', late);
  const waiting = f.startedBefore('a', erase);
  assert.equal(await settled(waiting), false, 'the earlier request of app a is still running');
  f.leave('a', early);
  assert.equal(await settled(waiting), true, 'neither the erase itself, the later request nor app b is waited for');
  assert.equal(f.count('a'), 2);
  const drain = f.drained('a');
  f.leave('a', erase);
  assert.equal(await settled(drain), false);
  f.leave('a', late);
  assert.equal(await settled(drain), true);
  assert.equal(f.count('a'), 0);
  assert.equal(await settled(f.startedBefore('b', other)), true, 'nothing of b started before its first request');
});
