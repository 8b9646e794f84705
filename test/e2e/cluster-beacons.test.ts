/**
 * Cluster mode, beacons (contract §8, §9): two `dwell serve` nodes on one nats-server (started
 * here, the bundled venues published to it) keep one registry. A beacon registered through node A
 * decides a detection answered by node B (the two shops 6 m apart of beacons-api.test.ts); the
 * same uuid/major/minor created through both nodes at once is one 200 and one 409; deleting the
 * app through one node removes what was registered through the other, from the cluster's bucket.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedNats } from '../helpers/cluster.js';
import { startDwell, ADMIN_TOKEN, type Running } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { until } from '../helpers/until.js';
import { openNatsState, type NatsKit } from '../../src/state/nats/kit.js';

let A: Running, B: Running, kit: NatsKit;
before(async () => {
  const { urls } = await sharedNats();
  [A, B] = await Promise.all([startDwell({ DWELL_STATE: urls }), startDwell({ DWELL_STATE: urls })]);
  kit = await openNatsState(urls.split(','));
});
after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  await kit?.close();
});

const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
const CLOTHES = 'n5765808355', WINE = 'n5765826653';
const used = new Set<number>();
/**
 * Every request signed at a second no other request used: an identical body sent twice (the racing
 * creates) is never taken for a replay. (Now minus a counter was not enough: when the clock ticked a
 * second between two calls, the second call's timestamp equalled the first's.)
 */
function stamp(): number {
  let t = Math.floor(Date.now() / 1000);
  while (used.has(t)) t--;
  used.add(t);
  return t;
}
const call = (node: Running, app: TestApp, path: string, body?: unknown) =>
  signed(node.url, app, path, body, { timestamp: stamp() });
const base = (app: TestApp) => `/v2/apps/${app.app_key}/beacons`;

/** A stay between the two shops (6 m apart) whose fixes cannot tell them apart (beacons-api.test.ts). */
const stay = (user: string, scan?: Array<Record<string, unknown>>) => {
  const data = Array.from({ length: 10 }, (_, i) => ({
    timestamp: `2024-05-06T14:${String(10 + i).padStart(2, '0')}:00+02:00`,
    location: { lat: 43.73289 + ((i % 3) - 1) * 0.00004, long: 7.41832 + ((i % 4) - 1.5) * 0.00004, accuracy: 15 + (i % 3) * 5 },
    ...(scan ? { beacon_scan: scan } : {}),
  }));
  return { advertising_id: user, events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp, end_time: data[9].timestamp, data }] };
};
const topOf = (r: { status: number; body: any }): string => {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data[0].visit.place.venues[0].id;
};

test('a beacon registered through node A decides a detection answered by node B', async () => {
  const [app, plain] = [await createApp(A.url), await createApp(A.url)];
  const heard = [{ uuid: UUID, major: 900, minor: 1, rssi: -78, tx_power: -59 }];
  assert.notEqual(topOf(await call(B, plain, '/v1/detect', stay('u0'))), WINE, 'the fixes alone favour another venue');
  const created = await call(A, app, `${base(app)}/create`, { uuid: UUID, major: 900, minor: 1, venue_id: WINE });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  // B's detection threads follow the bucket's watch (milliseconds): each try is a new user.
  let tries = 0;
  await until('node B\'s detection to use the beacon', async () => topOf(await call(B, app, '/v1/detect', stay(`u${++tries}`, heard))) === WINE, 10_000);
  const read = await call(B, app, `${base(app)}/${created.body}`);
  assert.deepEqual([read.status, read.body.venue_id], [200, WINE], 'node B reads it through the API too');

  // Moved to the clothes shop through B: A's detections follow.
  const moved = await call(B, app, `${base(app)}/${created.body}/update`, { venue_id: CLOTHES });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  await until('node A\'s detection to follow the update', async () => topOf(await call(A, app, '/v1/detect', stay(`u${++tries}`, heard))) === CLOTHES, 10_000);
});

test('the same uuid/major/minor created through both nodes at once: one 200, one 409', async () => {
  const app = await createApp(A.url);
  for (let minor = 0; minor < 5; minor++) {
    const body = { uuid: UUID, major: 7, minor, venue_id: CLOTHES };
    const answers = await Promise.all([call(A, app, `${base(app)}/create`, body), call(B, app, `${base(app)}/create`, body)]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409], JSON.stringify(answers.map((r) => r.body)));
    assert.equal(answers.find((r) => r.status === 409)!.body.error.code, 'conflict');
  }
  const list = await call(A, app, `${base(app)}?limit=100`);
  assert.equal(list.body.beacons.length, 5);
});

test('deleting an app through one node removes the beacons registered through the other, cluster-wide', async () => {
  const app = await createApp(A.url);
  for (let minor = 0; minor < 3; minor++) {
    const r = await call(B, app, `${base(app)}/create`, { uuid: UUID, major: 8, minor, location: { lat: 43.7329, long: 7.4183 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const imported = await signed(B.url, app, `${base(app)}/import`, undefined, {
    method: 'POST', raw: Buffer.from(JSON.stringify({ uuid: UUID, major: 8, minor: 9, venue_id: WINE }) + '\n'), headers: { 'content-type': 'application/x-ndjson' }, gzip: false,
  });
  assert.deepEqual([imported.status, imported.body.created], [200, 1], JSON.stringify(imported.body));
  assert.equal((await kit.beacons.keys(app.app_key)).length, 4, 'in the cluster\'s bucket');

  const r = await fetch(`${A.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = await r.json() as { removed: { beacons: number } };
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(body.removed.beacons, 4, JSON.stringify(body));
  assert.deepEqual(await kit.beacons.keys(app.app_key), [], 'nothing of the app is left for any node');
  const gone = await call(B, app, `${base(app)}?limit=100`);
  assert.equal(gone.status, 401, 'node B knows the app is gone');
});
