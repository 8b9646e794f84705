/**
 * Deleting an app (contract §7): `dwell apps delete <key>` (DELETE /admin/apps/<key>) removes
 * the app and everything stored for it, its key then answers 401 unknown_app, and another app is
 * unaffected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { withDwellApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN, CLI } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

const CIRCLE = { lat: CASINO.lat, long: CASINO.long, radius: 150 };
/** A visit at the casino, inside the fence, hearing a network (so the app learns where it is). */
const visit = (advertising_id: string) => ({
  advertising_id,
  events: [{
    event_id: 'ev-1', type: 'visit', start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00',
    data: fixes(CASINO, '2024-05-06T07', [27, 31, 35, 40, 45]).map((f) => ({ ...f, wifi_scan: [{ ssid: 'CasinoGuest', bssid: 'a4:2b:b0:11:22:33', strength: -50 }] })),
  }],
});

test('dwell apps delete removes the app and what is stored for it; another app is unaffected', async () => {
  await withDwellApp({}, async (dwell) => {
    const setUp = async (app: TestApp) => {
      const fence = await signed(dwell.url, app, `/v2/apps/${app.app_key}/geofences/create`, { tag: 'casino', location: CIRCLE, ttl: 0, push_text: null });
      assert.equal(fence.status, 200, JSON.stringify(fence.body));
      const r = await signed(dwell.url, app, '/v1/detect', visit('ad-shared'));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return fence.body as string;
    };
    const doomed = dwell.app, kept = await createApp(dwell.url);
    await setUp(doomed);
    const keptFence = await setUp(kept);

    const run = await promisify(execFile)(process.execPath, [CLI, 'apps', 'delete', doomed.app_key, '--url-base', dwell.url, '--admin-token', ADMIN_TOKEN]);
    const out = JSON.parse(run.stdout);
    assert.equal(out.deleted, doomed.app_key);
    assert.equal(out.removed.users, 1, run.stdout);
    assert.equal(out.removed.geofences, 1, run.stdout);
    assert.ok(out.removed.learned >= 1, `learned tables removed: ${run.stdout}`);

    const refused = await signed(dwell.url, doomed, '/v1/detect', visit('ad-shared'));
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'unknown_app');
    const gone = await fetch(`${dwell.url}/admin/apps/${doomed.app_key}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(gone.status, 404);
    const again = await fetch(`${dwell.url}/admin/apps/${doomed.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(again.status, 404, 'deleting twice: nothing left');
    assert.equal((await fetch(`${dwell.url}/admin/apps/${kept.app_key}`, { method: 'DELETE' })).status, 401, 'the admin token is needed');

    // The other app keeps its fence, its user and its history.
    assert.equal((await signed(dwell.url, kept, `/v2/apps/${kept.app_key}/geofences/${keptFence}`)).status, 200);
    const ex = await signed(dwell.url, kept, `/v2/apps/${kept.app_key}/users/export?advertising_id=ad-shared`);
    assert.ok(ex.body.users[0].record.visit_history.length >= 1, JSON.stringify(ex.body));
    assert.deepEqual(ex.body.users[0].geofence_presence.inside_geofences, [keptFence]);
  });
});

test('an app deleted while its detections are in flight keeps nothing: deleting it again finds nothing left', async () => {
  await withDwellApp({}, async (dwell) => {
    const app = dwell.app;
    const sent = Array.from({ length: 120 }, (_, i) => signed(dwell.url, app, '/v1/detect', visit(`ad-${i}`)));
    // Once the first answers, the rest are being read, queued or detected.
    await Promise.race(sent);
    const del = await fetch(`${dwell.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(del.status, 200, await del.text());
    const answers = await Promise.all(sent);
    for (const r of answers) assert.ok(r.status === 200 || (r.status === 401 && r.body.error.code === 'unknown_app'), `${r.status} ${JSON.stringify(r.body)}`);
    const again = await fetch(`${dwell.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(again.status, 404, `what was stored after the deletion: ${await again.text()}`);
  });
});
