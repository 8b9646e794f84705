/**
 * The workers' warm-up runs until the time a detection takes has stopped falling (issue 21),
 * not a fixed count: still falling keeps it going, flat ends it, and never before each worker
 * ran its minimum.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WarmUpSettle } from '../src/server/warm-up-settle.js';

/** Waves of 24 detections on 2 workers taking `perDetection` ms each: wall ms = per × 24 / 2. */
const fed = (perDetection: number[], minPerWorker = 50) => {
  const s = new WarmUpSettle(2, minPerWorker);
  for (const p of perDetection) s.add(24, (p * 24) / 2);
  return s;
};

test('a warm-up whose detections still get faster is not settled', () => {
  assert.equal(fed([12, 10, 8, 6, 5, 4]).settled, false);
});

test('flat per-detection times settle it once each worker ran its minimum', () => {
  assert.equal(fed([3, 3.1, 2.9, 3, 3.2, 3]).settled, true);
  assert.equal(fed([3, 3.1, 2.9, 3, 3.2, 3], 200).settled, false, '72 detections a worker, 200 asked');
});

test('fewer than two windows of waves never settle', () => {
  assert.equal(fed([3, 3, 3, 3, 3]).settled, false);
});

test('the summary reports per-detection ms of the first, best and last waves', () => {
  const s = fed([12, 10, 8, 6, 5, 4, 4, 4]);
  assert.deepEqual(s.summary(), { waves: 8, detections: 192, first_ms: 12, best_ms: 4, last_ms: 4 });
});
