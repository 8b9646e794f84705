/**
 * The replay cache (server/replay-cache.ts) commits the signatures recorded in one turn of the
 * loop together, and answers their claims only once they are committed: what a restart reads
 * back is every signature whose claim was answered, also those recorded just before a close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayCache } from '../src/server/replay-cache.js';
import { tempDir } from './helpers/server.js';

const sig = (i: number) => i.toString(16).padStart(4, '0').padEnd(64, 'a');
const refused = (c: ReplayCache, i: number, now: number) => { try { c.check('ak_x', sig(i), now); return false; } catch { return true; } };

test('claims of one turn are answered true once committed, and a reopened cache refuses them all', async () => {
  const dir = tempDir(), nowS = 1_800_000_000, now = nowS * 1000;
  const first = new ReplayCache(dir, 60_000, now);
  const turn = [0, 1, 2, 3, 4].map((i) => first.record('ak_x', sig(i), nowS));
  assert.deepEqual(await Promise.all(turn), [true, true, true, true, true]);
  const next = first.record('ak_x', sig(5), nowS);
  assert.equal(await next, true, 'a claim of a later turn is answered too');
  await first.close();
  const again = new ReplayCache(dir, 60_000, now);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => refused(again, i, now)), [true, true, true, true, true, true]);
  assert.equal(refused(again, 6, now), false, 'a signature never recorded is not refused');
  await again.close();
});

test('claims recorded in the turn a cache closes are committed before it closes, and answered', async () => {
  const dir = tempDir(), nowS = 1_800_000_000, now = nowS * 1000;
  const c = new ReplayCache(dir, 60_000, now);
  const claims = [7, 8].map((i) => c.record('ak_x', sig(i), nowS));
  await c.close();
  assert.deepEqual(await Promise.all(claims), [true, true]);
  // The commit the turn had scheduled finds nothing left to do once the cache is closed.
  await new Promise((r) => setImmediate(r));
  const again = new ReplayCache(dir, 60_000, now);
  assert.deepEqual([7, 8].map((i) => refused(again, i, now)), [true, true]);
  await again.close();
});
