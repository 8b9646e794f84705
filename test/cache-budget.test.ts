/**
 * DWELL_CACHE_MB (issue 21): what an operator sets bounds every per-thread cache of the
 * detection workers, split between the workers; a bad value is refused at start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheEntries, DEFAULT_CACHE_MB, type CacheName } from '../src/cache-budget.js';
import { loadConfig } from '../src/config.js';

const NAMES: CacheName[] = ['apPlaces', 'pooledAps', 'venueRecords', 'addressCells', 'wifiKeys'];

test('each cache grows with DWELL_CACHE_MB and shrinks as the workers that share it grow', () => {
  for (const name of NAMES) {
    const base = cacheEntries(name, { DWELL_CACHE_MB: '256', DWELL_WORKERS: '2' });
    assert.ok(Math.abs(cacheEntries(name, { DWELL_CACHE_MB: '512', DWELL_WORKERS: '2' }) - 2 * base) <= 1, name);
    assert.ok(Math.abs(cacheEntries(name, { DWELL_CACHE_MB: '256', DWELL_WORKERS: '4' }) - base / 2) <= 1, name);
  }
  // The shares add up to the budget: entries × estimated bytes ≤ the per-thread share.
  const estimate = { apPlaces: 200, pooledAps: 2048, venueRecords: 1024, addressCells: 400, wifiKeys: 160 };
  const bytes = NAMES.reduce((a, n) => a + cacheEntries(n, { DWELL_CACHE_MB: '256', DWELL_WORKERS: '2' }) * estimate[n], 0);
  assert.ok(bytes <= 128 * 2 ** 20 && bytes > 127 * 2 ** 20, String(bytes));
  // A tiny budget still leaves every cache useful.
  for (const name of NAMES) assert.ok(cacheEntries(name, { DWELL_CACHE_MB: '8', DWELL_WORKERS: '64' }) >= 1024);
});

test('DWELL_CACHE_MB defaults to 128 and refuses what is not a whole number of MB from 8', () => {
  assert.equal(loadConfig({}, {}).cacheMb, DEFAULT_CACHE_MB);
  assert.equal(loadConfig({ '--cache-mb': '512' }, {}).cacheMb, 512);
  for (const bad of ['0', '4', '1.5', 'lots']) assert.throws(() => loadConfig({}, { DWELL_CACHE_MB: bad }), /DWELL_CACHE_MB/);
});
