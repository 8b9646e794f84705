/** A user's presence in their record (users/presence.ts): records of the cluster engine written before it hold fences in `g`. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyRecord, presenceOf, setPresence } from '../src/users/records.js';
import { holdsPresence } from '../src/users/presence.js';

test('an older cluster record\'s `g` reads as the fence part; the next write keeps only `p`', () => {
  const old = { ...emptyRecord(), g: { inside: ['gf_1'], last: 5 } };
  assert.deepEqual(presenceOf(old), { fences: { inside: ['gf_1'], last: 5 } });
  const next = setPresence(old, { ...presenceOf(old), country: { code: 'MC', last: 6 } });
  assert.equal(next.g, undefined);
  assert.deepEqual(presenceOf(next), { fences: { inside: ['gf_1'], last: 5 }, country: { code: 'MC', last: 6 } });
  assert.deepEqual(presenceOf(undefined), {});
  assert.equal(holdsPresence(presenceOf(emptyRecord())), false);
  assert.equal(holdsPresence(presenceOf(next)), true);
});
