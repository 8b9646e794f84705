/**
 * The learned cache's bound (learned/cache.ts evictOne): it never holds more than its entries,
 * gives up its oldest first, app by app, and what it keeps still answers without a load, through
 * many rounds of churn (where a Map's deleted places pile up).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LearnedCache, newVersions } from '../src/learned/cache.js';

const loads = { n: 0 };
const load = (v: number) => () => { loads.n++; return v; };

test('a full cache gives up its oldest entry for each new one, and keeps the newest, through churn', () => {
  const cache = new LearnedCache<number>(newVersions(), 100, 'apx');
  cache.begin();
  for (let i = 0; i < 10_000; i++) assert.equal(cache.get('ak_a', `n${i}`, load(i)), i);
  for (let i = 0; i < 9_900; i += 97) assert.equal(cache.peek('ak_a', `n${i}`), undefined, `n${i} was given up`);
  loads.n = 0;
  for (let i = 9_900; i < 10_000; i++) assert.equal(cache.get('ak_a', `n${i}`, load(-1)), i, `n${i} kept`);
  assert.equal(loads.n, 0, 'the newest 100 answered without a load');
});

test('the first app\'s entries go first; an app whose entries all went is dropped, then the next app\'s go', () => {
  const cache = new LearnedCache<number>(newVersions(), 4, 'apx');
  cache.begin();
  cache.get('ak_a', 'a1', load(1));
  cache.get('ak_a', 'a2', load(2));
  cache.get('ak_b', 'b1', load(3));
  cache.get('ak_b', 'b2', load(4));
  cache.get('ak_b', 'b3', load(5)); // a1 goes
  cache.get('ak_b', 'b4', load(6)); // a2 goes
  assert.deepEqual(['a1', 'a2'].map((n) => cache.peek('ak_a', n)), [undefined, undefined]);
  cache.get('ak_a', 'a3', load(7)); // ak_a was emptied: b1 goes
  assert.deepEqual(['b1', 'b2', 'b3', 'b4'].map((n) => cache.peek('ak_b', n)), [undefined, 4, 5, 6]);
  assert.equal(cache.peek('ak_a', 'a3'), 7);
});
