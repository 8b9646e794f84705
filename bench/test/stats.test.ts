/** The reports' "median (min–max)" of a benchmark's rounds (bench/lib/stats.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { medianRange } from '../lib/stats.js';

test('medianRange prints the median and the extremes of the rounds, rounded alike', () => {
  assert.equal(medianRange([3.3333, 1.5, 2.4444], 2), '2.44 (1.50–3.33)');
  assert.equal(medianRange([4, 1, 2, 3], 1), '2.5 (1.0–4.0)', 'an even count: the mean of the middle two');
  assert.equal(medianRange([118.6], 0), '119 (119–119)');
});
