/**
 * The migration mechanism (src/ops/migrations.ts) with migrations of the test's own, since this
 * release has no layout change to make yet: steps run in order, once, each stamped when done; a
 * step that fails leaves the directory at its old stamp with what it replaced kept aside, and the
 * next open puts that back before migrating again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './helpers/server.js';
import { ASIDE, openDataDir, type Migration } from '../src/ops/migrations.js';
import { decide, readStamp, writeStamp } from '../src/ops/format-version.js';

const read = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8');

/** A directory at format 1 with one store (`users/data.mdb`, any bytes will do here). */
function atVersion1(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'users'));
  writeFileSync(path.join(dir, 'users', 'data.mdb'), 'v1 records');
  writeStamp(dir, 1);
  return dir;
}

const upper: Migration = { from: 1, what: 'records in capitals', rewrites: ['users'], run: (d) => writeFileSync(path.join(d, 'users', 'data.mdb'), read(d, 'users/data.mdb').toUpperCase()) };
const marker: Migration = { from: 2, what: 'a new store', rewrites: [], run: (d) => writeFileSync(path.join(d, 'outbox.mdb'), 'new') };

test('the decision: fresh is stamped, equal is current, older migrates, newer is refused', () => {
  assert.deepEqual([decide(undefined, 3), decide(3, 3), decide(1, 3), decide(4, 3)],
    [{ action: 'stamp' }, { action: 'current' }, { action: 'migrate', from: 1 }, { action: 'refuse', found: 4 }]);
});

test('an older directory is migrated step by step to the version this release knows, once', async () => {
  const dir = atVersion1();
  let runs = 0;
  const counted = { ...upper, run: (d: string) => { runs++; return upper.run(d); } };
  await openDataDir(dir, [counted, marker], 3);
  assert.equal(read(dir, 'users/data.mdb'), 'V1 RECORDS');
  assert.equal(read(dir, 'outbox.mdb'), 'new');
  assert.equal(readStamp(dir)?.format_version, 3);
  assert.equal(existsSync(path.join(dir, ASIDE)), false, 'the copy kept aside is gone once done');
  await openDataDir(dir, [counted, marker], 3);
  assert.equal(runs, 1);
});

test('a migration that fails leaves the old stamp and a copy of what it replaced, put back on the next open', async () => {
  const dir = atVersion1();
  const halfway: Migration = { ...upper, run: (d) => { writeFileSync(path.join(d, 'users', 'data.mdb'), 'half-writ'); throw new Error('disk full'); } };
  await assert.rejects(openDataDir(dir, [halfway, marker], 3), /disk full/);
  assert.equal(readStamp(dir)?.format_version, 1);
  assert.equal(read(dir, `${ASIDE}/users/data.mdb`), 'v1 records');

  await openDataDir(dir, [upper, marker], 3);
  assert.equal(read(dir, 'users/data.mdb'), 'V1 RECORDS', 'migrated from the original, not the half-written file');
  assert.equal(readStamp(dir)?.format_version, 3);
});

test('a fresh directory is stamped; one with stores and no stamp is format 0', async () => {
  const fresh = tempDir();
  await openDataDir(fresh, [], 3);
  assert.equal(readStamp(fresh)?.format_version, 3);
  const old = tempDir();
  writeFileSync(path.join(old, 'apps.mdb'), '');
  assert.equal(readStamp(old)?.format_version, 0);
});
