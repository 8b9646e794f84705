/**
 * Contract §6's data format version, from outside: the fixture directory written by this
 * release (test/fixtures/data-dir-v1, NOTE.md there) opens and serves what it holds; the same
 * directory without its stamp (as releases before format versions left it) is migrated once,
 * logged; a directory or a backup stamped with a format newer than this release knows is refused
 * with a message naming both versions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, ROOT, serveRefusal, startDwell, tempDir } from '../helpers/server.js';
import { signed, type TestApp } from '../helpers/client.js';
import { dwell, holdingReceiver } from '../helpers/dwell-cli.js';
import { fixtureVisit, type DataDirFixture } from '../helpers/data-dir-fixture.js';
import { until } from '../helpers/until.js';
import { DWELL_VERSION, FORMAT_VERSION } from '../../src/ops/format-version.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/data-dir-v1');
const about = JSON.parse(readFileSync(path.join(FIXTURE, 'fixture.json'), 'utf8')) as DataDirFixture;
const sync: TestApp = { ...about.sync, delivery: { method: 'sync' } };
const post: TestApp = { ...about.postback, delivery: { method: 'postback' } };
const FIRST = Date.parse(`2024-05-${about.first_visit}T07:25:00+02:00`);
/**
 * The server's time a minute after the fixture was written, whatever today's date: its pending
 * triggers are then inside contract §3's 24 hours and its user inside the retention window.
 */
const ON_THE_DAY = { DWELL_TEST_CLOCK: new Date(Date.parse(about.written_at) + 60_000).toISOString() };

/** A copy of the fixture to open (a node writes to its directory). */
function copy(): string {
  const dir = path.join(tempDir(), 'data');
  cpSync(FIXTURE, dir, { recursive: true });
  rmSync(path.join(dir, 'fixture.json'));
  rmSync(path.join(dir, 'NOTE.md'));
  return dir;
}
const stamp = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'format.json'), 'utf8'));

test(`the fixture directory written by Dwell ${about.dwell_version} (format ${about.format_version}) opens and serves what it holds`, async () => {
  const sink = await holdingReceiver();
  sink.open();
  const node = await startDwell({ DWELL_DATA_DIR: copy(), ...ON_THE_DAY });
  try {
    // The synchronous app signs; its user's history and beacon are there.
    const r = await signed(node.url, sync, '/v1/detect', fixtureVisit(about.sync.user, '20', 'after-upgrade'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(Date.parse(r.body.data[0].visit.place.first_visit_time), FIRST, 'the user\'s history');
    assert.equal((await signed(node.url, sync, `/v2/apps/${sync.app_key}/beacons/${about.sync.beacon}`)).status, 200);
    // The postback app's geofence reads back, and its pending triggers go out once it has a receiver.
    assert.equal((await signed(node.url, post, `/v2/apps/${post.app_key}/geofences/${about.postback.geofence}`)).status, 200);
    const patched = await fetch(`${node.url}/admin/apps/${post.app_key}`, {
      method: 'PATCH', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ delivery: { method: 'postback', url: sink.url } }),
    });
    assert.equal(patched.status, 200, await patched.text());
    await until('the fixture\'s two pending triggers delivered', () => sink.arrivals.length >= 2);
    assert.deepEqual(sink.arrivals.map((a) => a.body.data.request_id), [about.postback.pending_request, about.postback.pending_request]);
    assert.equal(stamp(node.dataDir).format_version, FORMAT_VERSION);
  } finally {
    await node.stop();
    sink.close();
  }
});

test('a directory written before data format versions (no stamp) is migrated once, logged, and serves', async () => {
  const dir = copy();
  rmSync(path.join(dir, 'format.json'));
  const node = await startDwell({ DWELL_DATA_DIR: dir, ...ON_THE_DAY });
  try {
    const migrated = node.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'data format migrated');
    assert.deepEqual(migrated.map((l) => [l.from, l.to]), Array.from({ length: FORMAT_VERSION }, (_, v) => [v, v + 1]));
    assert.deepEqual(stamp(dir), { format_version: FORMAT_VERSION, written_by: DWELL_VERSION });
    const r = await signed(node.url, sync, '/v1/detect', fixtureVisit(about.sync.user, '21', 'after-migration'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(Date.parse(r.body.data[0].visit.place.first_visit_time), FIRST);
  } finally {
    await node.stop();
  }
  const again = await startDwell({ DWELL_DATA_DIR: dir, ...ON_THE_DAY });
  try {
    assert.equal(again.logs.filter((l) => l.includes('data format migrat')).length, 0, 'migrated once only');
  } finally {
    await again.stop();
  }
});

test('a directory or a backup of a newer data format is refused, naming both versions; nothing is changed', async () => {
  const dir = copy();
  const future = { format_version: FORMAT_VERSION + 1, written_by: '99.0.0' };
  writeFileSync(path.join(dir, 'format.json'), JSON.stringify(future));
  const named = new RegExp(`holds data format version ${FORMAT_VERSION + 1} \\(written by Dwell 99\\.0\\.0\\); this Dwell ${DWELL_VERSION.replace(/\./g, '\\.')} reads data format version ${FORMAT_VERSION} and older`);

  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DWELL_')));
  const serve = await serveRefusal({ args: ['--data-dir', dir, '--port', '0', '--host', '127.0.0.1'], env: { ...clean, DWELL_WORKERS: '1', DWELL_WARM_UP: 'off' }, timeoutMs: 30_000 });
  assert.equal(serve.code, 4, serve.output);
  assert.match(serve.output, named);
  assert.deepEqual(stamp(dir), future, 'the stamp is left as it was');

  const backup = await dwell(['backup', '--data-dir', dir, '--out', path.join(tempDir(), 'b')]);
  assert.equal(backup.code, 4, backup.stderr);
  assert.match(backup.stderr, named);

  // A backup this release wrote, its manifest then stamped as a newer release's.
  const out = path.join(tempDir(), 'b');
  writeFileSync(path.join(dir, 'format.json'), JSON.stringify({ format_version: FORMAT_VERSION, written_by: DWELL_VERSION }));
  assert.equal((await dwell(['backup', '--data-dir', dir, '--out', out])).code, 0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ ...manifest, format_version: FORMAT_VERSION + 1, dwell_version: '99.0.0' }));
  const restore = await dwell(['restore', out, '--data-dir', path.join(tempDir(), 'r')]);
  assert.equal(restore.code, 4, restore.stderr);
  assert.match(restore.stderr, named);
});
