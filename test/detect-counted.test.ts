/**
 * The counted-or-not prior (src/detect/evidence/counted-prior.ts): a store of one source must rank
 * exactly as without it, and in a mixed store the weight must follow where the app's confirmed
 * stays land. The LMDB merge is replaced by an in-memory one with the same contract.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countedLog, learnCounted } from '../src/detect/evidence/counted-prior.js';
import type { SparseSync } from '../src/detect/evidence/footprint.js';
import { DEFAULT_PARAMS } from '../src/detect/params.js';

const C = DEFAULT_PARAMS.counted;

function memorySync(): SparseSync {
  const tables = new Map<string, Map<number, number>>();
  return {
    mergeSparse(name, app, pending) {
      const key = `${name}/${app}`;
      const t = tables.get(key) ?? new Map<number, number>();
      for (const [k, v] of pending) t.set(k, (t.get(k) ?? 0) + v);
      tables.set(key, t);
      return new Map(t);
    },
  };
}

const counted = { venue: { popularity: 3 } }, uncounted = { venue: { popularity: -1 } };

test('a store of one source gets no bonus, however the stays land', () => {
  const sync = memorySync();
  for (const sizes of [{ count: 100, counted: 0 }, { count: 100, counted: 100 }]) {
    for (let i = 0; i < 500; i++) learnCounted('a', sync, sizes, [{ ...counted, probability: 0.9 }, { ...uncounted, probability: 0.1 }], C);
    assert.equal(countedLog('a', sync, sizes, 3, C), 0);
    assert.equal(countedLog('a', sync, sizes, -1, C), 0);
  }
});

test('in a mixed store the bonus starts at 0 and follows the stays, per app', () => {
  const sync = memorySync();
  const sizes = { count: 1000, counted: 400 };
  assert.ok(Math.abs(countedLog('a', sync, sizes, 0, C)) < 1e-12, 'the prior alone is neutral');
  for (let i = 0; i < 300; i++) learnCounted('a', sync, sizes, [{ ...counted, probability: 0.95 }, { ...uncounted, probability: 0.05 }], C);
  for (let i = 0; i < 300; i++) learnCounted('b', sync, sizes, [{ ...counted, probability: 0.1 }, { ...uncounted, probability: 0.9 }], C);
  const a = countedLog('a', sync, sizes, 0, C), b = countedLog('b', sync, sizes, 0, C);
  // a: shares ≈ 0.93 / 0.07 against 0.4 / 0.6 of the venues → log((0.93/400)/(0.07/600)) ≈ 3.
  assert.ok(a > 2.5 && a < 3.5, `app a's bonus should be about 3 nats, got ${a}`);
  assert.ok(b < -1.5, `app b's stays land on uncounted venues, so its bonus should be negative, got ${b}`);
  assert.equal(countedLog('a', sync, sizes, -1, C), 0, 'uncounted venues are the reference');
});
