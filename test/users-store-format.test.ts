/** The user store reads what earlier versions wrote (msgpackr records) and writes plain maps. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { openUserStore } from '../src/users/store.js';
import type { UserRecord } from '../src/users/records.js';
import type { PooledAp } from '../src/detect/evidence/wifi.js';
import { tempDir } from './detect-helpers.js';

test('records and pooled networks written with msgpackr records still read, and update', async () => {
  const dir = tempDir();
  const rec: UserRecord = { h: { 'venue-1': { f: 1_700_000_000_000, l: 1_700_100_000_000, p: 1_700_000_000_000, n: 1.7, i: 'v_b' } }, r: ['v_a', 'v_b'], v: [43.74, 7.42, 12.5, 1_700_100_000], t: ['venue-1', 0.8, 'venue-2', 0.1] };
  const pooled: PooledAp = { n: 2, v: { 'venue-1': [-0.5, 2], 'venue-2': [-3, 1] } };
  // What a store of the previous version held: lmdb-js's default encoder (records on).
  const old = open({ path: path.join(dir, 'users'), compression: false });
  await old.put(['u', 'app-1', 'user-1'], rec);
  await old.put(['pv', 'app-1', 'aa:bb:cc:dd:ee:ff'], pooled);
  await old.close();

  const users = openUserStore(dir);
  assert.deepEqual(users.read('app-1', 'user-1'), rec);
  assert.deepEqual(users.pooledAps('app-1', ['aa:bb:cc:dd:ee:ff']), [pooled]);
  users.update('app-1', 'user-1', (r) => ({ record: { ...r, r: [...r.r, 'v_c'] }, result: null }));
  assert.deepEqual(users.read('app-1', 'user-1')?.r, ['v_a', 'v_b', 'v_c']);
  users.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
