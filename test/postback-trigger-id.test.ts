/** Trigger ids sort in creation order (the outbox appends instead of scattering) and stay unique. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTriggerId } from '../src/delivery/trigger-id.js';

test('trigger ids: tr_ + 32 hex digits, in creation order across milliseconds, unique within one', () => {
  const t0 = Date.UTC(2024, 4, 6, 12);
  const ids = [newTriggerId(t0), newTriggerId(t0 + 1), newTriggerId(t0 + 1000), newTriggerId(t0 + 86_400_000)];
  for (const id of ids) assert.match(id, /^tr_[0-9a-f]{32}$/);
  assert.deepEqual([...ids].sort(), ids);
  const same = Array.from({ length: 10_000 }, () => newTriggerId(t0));
  assert.equal(new Set(same).size, same.length);
});
