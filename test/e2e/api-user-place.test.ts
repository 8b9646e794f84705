/**
 * Contract §2 `user_place` and §7, over HTTP, in both engines: a user who spent three nights at
 * one place gets "home" on a later daytime visit there, another user at the same point does not,
 * a request without any id carries no `user_place`; the export shows the learned home and erase
 * forgets it; nights in unstructured streams make home as well. The cluster runs two nodes on one NATS JetStream,
 * the requests alternating between them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedNats } from '../helpers/cluster.js';
import { startDwell, type Running } from '../helpers/server.js';
import { createApp, earlierEachTime, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';

let embedded: Running, A: Running, B: Running;
before(async () => {
  const { urls } = await sharedNats();
  [embedded, A, B] = await Promise.all([startDwell(), startDwell({ DWELL_STATE: urls }), startDwell({ DWELL_STATE: urls })]);
});
after(async () => { await Promise.all([embedded?.stop(), A?.stop(), B?.stop()]); });

const stamp = earlierEachTime();
async function call(node: Running, app: TestApp, path: string, body?: unknown) {
  const r = await signed(node.url, app, path, body, { timestamp: stamp() });
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}
const pad = (d: number) => String(d).padStart(2, '0');
/** From 21:30 on 2024-05-<day> to 07:10 the next morning (+02:00), at the casino. */
const night = (ids: object, day: number) => ({
  ...ids, events: [{ event_id: `night-${day}`, type: 'visit', start_time: `2024-05-${pad(day)}T21:30:00+02:00`, end_time: `2024-05-${pad(day + 1)}T07:10:00+02:00`,
    data: fixes(CASINO, `2024-05-${pad(day)}T21`, [35, 120, 240, 360, 480, 580]) }],
});
/** 13:25 to 13:50 on 2024-05-<day>, at the casino. */
const afternoon = (ids: object, day: number) => ({
  ...ids, events: [{ event_id: `noon-${day}`, type: 'visit', start_time: `2024-05-${pad(day)}T13:25:00+02:00`, end_time: `2024-05-${pad(day)}T13:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${pad(day)}T13`, [27, 31, 35, 40, 45]) }],
});
/** A stream: at the casino from `from` for `minutes` (a fix every 20 min), then walking away for good. */
const streamStay = (ids: object, from: string, minutes: number) => ({
  ...ids, data: [
    ...fixes(CASINO, from.slice(0, 13), Array.from({ length: Math.floor(minutes / 20) + 1 }, (_, k) => Number(from.slice(14, 16)) + k * 20)),
    ...[1, 2, 3, 4, 5, 6, 7].map((m) => ({ timestamp: stampAfter(`${from}:00+02:00`, minutes + m),
      location: { lat: CASINO.lat - 0.0015 * m, long: CASINO.long - 0.0015 * m, accuracy: 10, speed: 1.4 } })),
  ],
});
/** The user_place of the ended stay a stream request reports. */
const streamPlaceOf = async (node: Running, app: TestApp, body: object) => {
  const ended = (await call(node, app, '/v1/detect', body)).data.map((d: any) => d.visit).filter((v: any) => v.end_time);
  assert.equal(ended.length, 1, JSON.stringify(ended));
  return 'user_place' in ended[0] ? ended[0].user_place : 'absent';
};
const placeOf = async (node: Running, app: TestApp, body: object) => {
  const visit = (await call(node, app, '/v1/detect', body)).data[0].visit;
  assert.equal(visit.event_type, 'visit');
  return 'user_place' in visit ? visit.user_place : 'absent';
};

for (const engine of ['embedded', 'cluster'] as const) {
  /** The node to send the k-th request to: the cluster alternates between its two. */
  const node = (k: number) => (engine === 'embedded' ? embedded : k % 2 ? B : A);

  test(`${engine}: three nights make home for that user only; a request without an id has no user_place`, async () => {
    const app = await createApp(node(0).url);
    const sleeper = { advertising_id: `sleeper-${engine}` };
    assert.equal(await placeOf(node(0), app, night(sleeper, 6)), null, 'one night is not yet a home');
    assert.equal(await placeOf(node(1), app, night(sleeper, 7)), null, 'nor two');
    assert.equal(await placeOf(node(0), app, night(sleeper, 8)), 'home', 'the third night');
    assert.equal(await placeOf(node(1), app, afternoon(sleeper, 10)), 'home', 'a later daytime visit there');
    assert.equal(await placeOf(node(0), app, afternoon({ advertising_id: `neighbour-${engine}` }, 10)), null, 'another user at the same point');
    assert.equal(await placeOf(node(0), app, afternoon({}, 12)), 'absent', 'no id: no user_place');
    const other = await createApp(node(1).url);
    assert.equal(await placeOf(node(1), other, afternoon(sleeper, 10)), null, 'the same advertising id in another app');
  });

  test(`${engine}: the export shows the learned home, and erase forgets it`, async () => {
    const app = await createApp(node(0).url);
    const ids = { advertising_id: `mover-${engine}` };
    for (const day of [6, 7, 8]) await placeOf(node(day), app, night(ids, day));
    const exported = await call(node(1), app, `/v2/apps/${app.app_key}/users/export?advertising_id=mover-${engine}`);
    const learned = exported.users[0].record.learned_places;
    assert.ok(Math.abs(learned.home.lat - CASINO.lat) < 1e-4 && Math.abs(learned.home.long - CASINO.long) < 1e-4, JSON.stringify(learned));
    assert.equal(learned.work, null);
    assert.deepEqual(learned.places.map((p: any) => [p.is, p.nights]), [['home', ['2024-05-07', '2024-05-08', '2024-05-09']]]);
    await call(node(0), app, `/v2/apps/${app.app_key}/users/erase`, ids);
    const after = await call(node(1), app, `/v2/apps/${app.app_key}/users/export?advertising_id=mover-${engine}`);
    assert.equal(after.users[0].record, null, 'nothing kept');
    assert.equal(await placeOf(node(0), app, afternoon(ids, 10)), null, 'home is forgotten');
  });
}

for (const engine of ['embedded', 'cluster'] as const) {
  const node = (k: number) => (engine === 'embedded' ? embedded : k % 2 ? B : A);
  test(`${engine} streams: nights in a stream make home too; a later stream stay there is "home", not for another user, absent without an id`, async () => {
    const app = await createApp(node(0).url);
    const ids = { advertising_id: `stream-sleeper-${engine}` };
    const places = [];
    // 21:30 to 07:10 the next morning, three nights.
    for (const [k, day] of ['06', '07', '08'].entries()) places.push(await streamPlaceOf(node(k), app, streamStay(ids, `2024-05-${day}T21:30`, 580)));
    assert.deepEqual(places, [null, null, 'home']);
    assert.equal(await streamPlaceOf(node(1), app, streamStay(ids, '2024-05-10T13:00', 40)), 'home');
    assert.equal(await streamPlaceOf(node(0), app, streamStay({ advertising_id: `stream-neighbour-${engine}` }, '2024-05-10T13:00', 40)), null);
    assert.equal(await streamPlaceOf(node(1), app, streamStay({}, '2024-05-11T13:00', 40)), 'absent');
  });
}
