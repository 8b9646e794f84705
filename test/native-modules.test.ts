/**
 * The native modules Dwell loads are N-API builds, so they load on every supported Node (20 and
 * 24, docs/operating.md "Node versions"): LMDB opens, writes and reads a store; msgpackr decodes with
 * msgpackr-extract rather than its JavaScript fallback, which would only be slower, so nothing
 * else would notice its absence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { isNativeAccelerationEnabled, pack, unpack } from 'msgpackr';

test(`lmdb opens, writes and reads a store on Node ${process.versions.node}`, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-native-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = open({ path: dir });
  await db.put('k', { visits: [1, 2, 3] });
  assert.deepEqual(db.get('k'), { visits: [1, 2, 3] });
  await db.close();
});

test(`msgpackr uses msgpackr-extract on Node ${process.versions.node}`, () => {
  assert.equal(isNativeAccelerationEnabled, true);
  const record = { name: 'Café de Paris', tags: Array.from({ length: 40 }, (_, i) => `tag-${i}`) };
  assert.deepEqual(unpack(pack(record)), record);
});
