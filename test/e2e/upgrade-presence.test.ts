/**
 * Data format 2 (src/ops/migrate-presence.ts): the fixture directory written by Dwell 0.1.0
 * (test/fixtures/data-dir-v1) holds a user inside the postback app's geofence in the geofence
 * store's own presence database. Opened by this release, that presence is in the user's record:
 * exported with the user, and the user's next fix inside the fence raises no second entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, ROOT, startDwell, tempDir } from '../helpers/server.js';
import { signed, type TestApp } from '../helpers/client.js';
import type { DataDirFixture } from '../helpers/data-dir-fixture.js';
import { CASINO } from '../helpers/requests.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/data-dir-v1');
const about = JSON.parse(readFileSync(path.join(FIXTURE, 'fixture.json'), 'utf8')) as DataDirFixture;
const post: TestApp = { ...about.postback, delivery: { method: 'postback' } };
const ON_THE_DAY = { DWELL_TEST_CLOCK: new Date(Date.parse(about.written_at) + 60_000).toISOString() };

test('an upgraded user inside a fence keeps their presence: exported, and no second entry', async () => {
  const dir = path.join(tempDir(), 'data');
  cpSync(FIXTURE, dir, { recursive: true });
  rmSync(path.join(dir, 'fixture.json'));
  rmSync(path.join(dir, 'NOTE.md'));
  const node = await startDwell({ DWELL_DATA_DIR: dir, ...ON_THE_DAY });
  try {
    const moved = node.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'geofence presence moved into user records');
    assert.equal(moved?.users, 1, 'the fixture\'s one user inside a fence');
    const exported = await signed(node.url, post, `/v2/apps/${post.app_key}/users/export?advertising_id=fixture-user`);
    assert.equal(exported.status, 200, JSON.stringify(exported.body));
    assert.deepEqual(exported.body.users[0].geofence_presence.inside_geofences, [about.postback.geofence]);

    // A day after the fixture's visit, still at the casino: a visit trigger, no geofence entry.
    // Another user there, never seen, enters: the request would raise one.
    for (const user of ['fixture-user', 'new-user']) {
      const r = await signed(node.url, post, '/v1/detect', {
        request_id: `after-upgrade-${user}`, advertising_id: user,
        data: [0, 5, 10].map((m) => ({ timestamp: `2024-05-07T08:${String(m).padStart(2, '0')}:00+02:00`, location: { ...CASINO, accuracy: 10 } })),
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    const res = await fetch(`${node.url}/admin/apps/${post.app_key}/deliveries?status=pending`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const pending = ((await res.json()) as any).deliveries.map((d: any) => d.trigger);
    const entries = (request: string) => pending.filter((t: any) => t.data.request_id === request && t.data.geofence_event).map((t: any) => t.data.geofence_event.type);
    assert.deepEqual(entries('after-upgrade-fixture-user'), [], 'no second entry');
    assert.deepEqual(entries('after-upgrade-new-user'), ['entry']);
  } finally {
    await node.stop();
  }
});
