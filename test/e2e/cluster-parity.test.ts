/**
 * Contract §8 (amended): every endpoint answers the same through any node, the operator's too.
 * Two `dwell serve` nodes, A and B, on a three-server JetStream cluster started here (the bundled
 * venues published to it). What is written through A is read through B: a user's export lists
 * the triggers A accepted; the explorer lists A's geofences and A's recent detections (bounded,
 * erased and exported through B); an explanation through B uses the history written through A
 * and a beacon registered through A, and answers what a detection through B answers. An app
 * deleted through A while B handles its detections keeps nothing of what they store.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { publishSample } from '../helpers/cluster.js';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { createApp, earlierEachTime, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { until } from '../helpers/until.js';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { USER_PARTITIONS } from '../../src/state/nats/kit.js';

let nats: NatsCluster, A: Running, B: Running;
let refusing: http.Server;
let hook = '';
before(async () => {
  nats = await startNatsCluster(3);
  await publishSample(nats);
  // A receiver that refuses every postback: triggers stay pending.
  refusing = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end()));
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hook`;
  // One detection thread a node: an explanation and the detection it is compared with read the same thread's copies.
  const env = { DWELL_STATE: nats.urls, DWELL_RECENT_COUNT: '3', DWELL_WORKERS: '1' };
  [A, B] = await Promise.all([startDwell(env), startDwell(env)]);
});
after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  refusing?.close();
  await nats?.stop();
});

const stamp = earlierEachTime();
const call = (node: Running, app: TestApp, path: string, body?: unknown) =>
  signed(node.url, app, path, body, { timestamp: stamp() });
const admin = (node: Running, path: string, init: RequestInit = {}) =>
  fetch(node.url + path, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...(init.headers ?? {}) } })
    .then(async (r) => ({ status: r.status, body: await r.json() as any }));
const visit = (ad: string, day: string) => ({
  advertising_id: ad, request_id: `r-${ad}-${day}`,
  events: [{ event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`, data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]) }],
});

test('export through B lists the pending triggers of a detection accepted through A', async () => {
  const app = await createApp(A.url, { method: 'postback', url: hook });
  const r = await call(A, app, '/v1/detect', visit('ad-export', '06'));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  for (const node of [B, A]) {
    const exported = await call(node, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-export`);
    assert.equal(exported.status, 200, JSON.stringify(exported.body));
    const triggers = exported.body.users[0].triggers;
    assert.ok(triggers.length >= 1, `a trigger listed: ${JSON.stringify(exported.body)}`);
    assert.ok(triggers.every((t: any) => t.status === 'pending' && t.trigger.data.user_info.device_id === 'ad-export'), JSON.stringify(triggers));
  }
  const erased = await call(B, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'ad-export' });
  assert.ok(erased.body.erased.pending_triggers >= 1, JSON.stringify(erased.body));
  assert.deepEqual((await call(A, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-export`)).body.users[0].triggers, []);
});

test('export and erase through A see a trigger that died on the cluster queue, whichever node gave it up', async () => {
  const app = await createApp(A.url, { method: 'postback', url: hook });
  assert.equal((await call(A, app, '/v1/detect', visit('ad-dead', '07'))).status, 202);
  // Switched to sync with the trigger still queued: whichever node's sender claims it gives it up.
  assert.equal((await admin(B, `/admin/apps/${app.app_key}`, { method: 'PATCH', body: JSON.stringify({ delivery: { method: 'sync' } }) })).status, 200);
  await until('the trigger dead', async () => (await admin(B, `/admin/apps/${app.app_key}/deliveries?status=dead`)).body.count >= 1);
  for (const node of [A, B]) {
    const exported = await call(node, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-dead`);
    const triggers = exported.body.users[0].triggers;
    assert.ok(triggers.length >= 1 && triggers.every((t: any) => t.status === 'dead'), JSON.stringify(triggers));
  }
  const erased = await call(A, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'ad-dead' });
  assert.ok(erased.body.erased.dead_triggers >= 1, JSON.stringify(erased.body));
  assert.equal((await admin(B, `/admin/apps/${app.app_key}/deliveries?status=dead`)).body.count, 0);
});

test('the explorer through B lists the geofences created through A', async () => {
  const app = await createApp(A.url);
  const ids: string[] = [];
  for (const tag of ['one', 'two']) {
    const r = await call(A, app, `/v2/apps/${app.app_key}/geofences/create`, { tag, push_text: null, ttl: 0, location: { lat: 43.7, long: 7.4, radius: 50 } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ids.push(r.body.id ?? r.body.geofence?.id ?? r.body);
  }
  for (const node of [B, A]) {
    const listed = await admin(node, `/admin/apps/${app.app_key}/geofences`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.geofences.map((g: any) => g.tag).sort(), ['one', 'two']);
  }
});

test('recent detections made through A: listed, opened, exported and erased through B, at most the count', async () => {
  const app = await createApp(A.url);
  for (const day of ['06', '07', '08', '09']) assert.equal((await call(A, app, '/v1/detect', visit('ad-recent', day))).status, 200);
  assert.equal((await call(A, app, '/v1/detect', visit('ad-other', '10'))).status, 200);
  const list = await until('B to list three, newest first', async () => {
    const l = await admin(B, `/admin/apps/${app.app_key}/recent`);
    return l.body.count === 3 && l.body.detections[0].user === 'ad-other' ? l : undefined;
  });
  assert.deepEqual(list.body.detections.map((d: any) => d.user), ['ad-other', 'ad-recent', 'ad-recent'], 'bounded: the oldest went');
  const opened = await Promise.all(list.body.detections.map((d: any) => admin(B, `/admin/apps/${app.app_key}/recent/${d.id}`)));
  assert.deepEqual(opened.map((o) => o.body.request.request_id), ['r-ad-other-10', 'r-ad-recent-09', 'r-ad-recent-08']);
  assert.deepEqual(opened[1].body.request, visit('ad-recent', '09'), 'the request as sent');
  assert.deepEqual((await admin(A, `/admin/apps/${app.app_key}/recent`)).body.detections, list.body.detections, 'the same list through A');

  const exported = await call(B, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-recent`);
  assert.deepEqual(exported.body.users[0].recent_detections.map((d: any) => d.request.request_id), ['r-ad-recent-08', 'r-ad-recent-09']);
  const erased = await call(B, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'ad-recent' });
  assert.equal(erased.body.erased.recent_detections, 2);
  assert.deepEqual((await admin(A, `/admin/apps/${app.app_key}/recent`)).body.detections.map((d: any) => d.user), ['ad-other']);
  const deleted = await admin(B, `/admin/apps/${app.app_key}`, { method: 'DELETE' });
  assert.equal(deleted.body.removed.recent_detections, 1);
});

test('an explanation through B uses the history written through A: it answers what a detection through B answers', async () => {
  const app = await createApp(A.url);
  for (const day of ['06', '07']) assert.equal((await call(A, app, '/v1/detect', visit('ad-history', day))).status, 200);
  const third = visit('ad-history', '08');
  const explained = await admin(B, `/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(third) });
  assert.equal(explained.status, 200, JSON.stringify(explained.body));
  const detected = await call(B, app, '/v1/detect', third);
  assert.equal(detected.status, 200, JSON.stringify(detected.body));
  const place = detected.body.data[0].visit.place;
  assert.ok(Date.parse(place.first_visit_time) < Date.parse(third.events[0].start_time), `the first visit is A's: ${JSON.stringify(place)}`);
  assert.deepEqual(explained.body.data, detected.body.data);
});

const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
/** A stay between two shops 6 m apart whose fixes cannot tell them apart (beacons-api.test.ts), a beacon heard. */
const stay = (user: string) => {
  const data = Array.from({ length: 10 }, (_, i) => ({
    timestamp: `2024-05-06T14:${String(10 + i).padStart(2, '0')}:00+02:00`,
    location: { lat: 43.73289 + ((i % 3) - 1) * 0.00004, long: 7.41832 + ((i % 4) - 1.5) * 0.00004, accuracy: 15 + (i % 3) * 5 },
    beacon_scan: [{ uuid: UUID, major: 901, minor: 1, rssi: -78, tx_power: -59 }],
  }));
  return { advertising_id: user, events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp, end_time: data[9].timestamp, data }] };
};

test('an explanation through B uses a beacon registered through A, as a detection does', async () => {
  const app = await createApp(A.url);
  const created = await call(A, app, `/v2/apps/${app.app_key}/beacons/create`, { uuid: UUID, major: 901, minor: 1, venue_id: 'n5765826653' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  // B's thread follows the registry's watch (milliseconds); explaining stores and teaches nothing, so it may be asked again.
  const body = stay('b-explained');
  const explained = await until('B\'s explanation to use the beacon', async () => {
    const e = await admin(B, `/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(body) });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    return e.body.data[0].visit.place.venues[0].id === 'n5765826653' ? e : undefined;
  });
  const detected = await call(B, app, '/v1/detect', body);
  assert.deepEqual(explained.body.data, detected.body.data);
});

/** The user records of `app` the cluster holds, counted in its buckets directly (no endpoint reads a deleted app's). */
async function userRecordsOf(app: string): Promise<number> {
  const nc = await connect({ servers: nats.urls.split(',') });
  try {
    let n = 0;
    for (let i = 0; i < USER_PARTITIONS; i++) {
      const kv = await new Kvm(nc).open(`dwell-users-${i}`);
      for await (const _ of await kv.keys(`${app}.>`)) n++;
    }
    return n;
  } finally {
    await nc.close();
  }
}

test('an app deleted through A while B handles its detections: what they store after the deletion is removed too', async () => {
  const app = await createApp(A.url);
  const sent = Array.from({ length: 150 }, (_, i) => call(B, app, '/v1/detect', visit(`ad-gone-${i}`, '06')));
  // Once B has answered one, the rest are being read, queued or detected there (one worker).
  await Promise.race(sent);
  const deleted = await admin(A, `/admin/apps/${app.app_key}`, { method: 'DELETE' });
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  for (const r of await Promise.all(sent)) assert.ok(r.status === 200 || r.body.error?.code === 'unknown_app', `${r.status} ${JSON.stringify(r.body)}`);
  // B removes them once its requests of the app have ended; without that they stayed for good.
  await until('no user record of the deleted app left', async () => (await userRecordsOf(app.app_key)) === 0, 20_000);
});
