/**
 * Learned beacons are the app's (['bl', app, uuid:major:minor] beside its learned networks): a
 * confident visit that hears a beacon nobody registered teaches it under the requesting app only,
 * and deleting the app (contract §7) removes what it learned while another app keeps its own.
 * Read from the data directory's users environment once the server has stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import { ADMIN_TOKEN, CLI, startDwell } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { fixes } from '../helpers/requests.js';

const UUID = 'e2c56db5-dffb-48d2-b060-d0f5a71096e0';
const KEY = `${UUID}:10:20`;
/** La Cambuse (data/monaco), no other venue within 80 m: a visit there is a confident one. */
const CAMBUSE = { lat: 43.7245389, long: 7.4181081 };

/** A long visit at La Cambuse hearing a beacon that no app registered. */
const visit = (advertising_id: string) => ({
  advertising_id,
  events: [{
    event_id: 'ev-1', type: 'visit', start_time: '2024-05-06T12:25:00+02:00', end_time: '2024-05-06T12:50:00+02:00',
    data: fixes(CAMBUSE, '2024-05-06T12', [27, 31, 35, 40, 45]).map((f) => ({ ...f, beacon_scan: [{ uuid: UUID.toUpperCase(), major: 10, minor: 20, rssi: -70, tx_power: -59 }] })),
  }],
});

test("a beacon nobody registered is learned under the requesting app only, and goes with the app's deletion", async () => {
  // Embedded, whatever the suite's mode: the values are read from the data directory afterwards
  // (cluster mode keeps them in the KV bucket, whose dropApp test/state/contract.ts covers).
  const dwell = await startDwell({ DWELL_STATE: 'lmdb' });
  let doomed: TestApp | undefined, kept: TestApp | undefined;
  try {
    doomed = await createApp(dwell.url);
    kept = await createApp(dwell.url);
    for (const app of [doomed, kept]) {
      const r = await signed(dwell.url, app, '/v1/detect', visit('ad-1'));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const top = r.body.data[0].visit.place.venues[0];
      assert.ok(top.probability >= 0.5, `a confident visit (it teaches): ${JSON.stringify(top)}`);
    }
    const run = await promisify(execFile)(process.execPath, [CLI, 'apps', 'delete', doomed.app_key, '--url-base', dwell.url, '--admin-token', ADMIN_TOKEN]);
    assert.equal(JSON.parse(run.stdout).deleted, doomed.app_key);
  } finally {
    await dwell.stop();
  }
  try {
    const db = open({ path: path.join(dwell.dataDir, 'users'), useRecords: false, compression: false } as RootDatabaseOptionsWithPath);
    const kept1 = db.get(['bl', kept!.app_key, KEY] as never) as { n: number; v: Record<string, [number, number]> } | undefined;
    assert.ok(kept1 && kept1.n === 1, `the other app keeps what its visit taught: ${JSON.stringify(kept1)}`);
    assert.equal(db.get(['bl', doomed!.app_key, KEY] as never), undefined, "the deleted app's learned beacon is gone");
    const left = [...db.getKeys({ start: ['bl', doomed!.app_key] as never, end: ['bl', `${doomed!.app_key}\u0000`] as never })];
    assert.deepEqual(left, []);
    await db.close();
  } finally {
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});
