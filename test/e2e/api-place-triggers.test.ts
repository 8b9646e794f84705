/**
 * Place triggers (contract §11) end to end: CRUD and every bad input through the signed API, then
 * a user's fixes walking to a Monaco venue of a brand and a type, answered synchronously or posted
 * to a real receiver. With DWELL_TEST_CLUSTER=1 (test/run.ts CLUSTER_FILES) the same file runs
 * against two nodes behind a round-robin proxy: a trigger written through one node fires for
 * detections through the other, and one user's requests alternate between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { holdingReceiver } from '../helpers/dwell-cli.js';
import { stampAfter } from '../helpers/stamps.js';
import { until } from '../helpers/until.js';

const dwell = dwellWithApp();

/** The bundled store's Starbucks (brand "Starbucks", type 426 Café, own radius 10 m). */
const SHOP = { id: 'n2622751938', lat: 43.7325973, long: 7.4177713 };
/** The level-2 type above Café: "Cafe, Coffee, and Tea House". */
const CAFES = 424;

const at = (minute: number, lat: number, long: number, accuracy = 5) => ({
  timestamp: stampAfter('2024-06-01T10:00:00+02:00', minute),
  location: { lat, long, accuracy, speed: 0.5 },
});
const far = (minute: number) => at(minute, SHOP.lat - 0.0045, SHOP.long);
/** 500 m south, at the shop from minute 2 to 8, then 500 m south again. */
const walk = [far(0), at(2, SHOP.lat, SHOP.long), at(4, SHOP.lat + 0.00001, SHOP.long), at(8, SHOP.lat, SHOP.long + 0.00001), far(10)];

const base = (app: TestApp) => `/v2/apps/${app.app_key}/place-triggers`;

async function create(app: TestApp, body: Record<string, unknown>): Promise<string> {
  const r = await signed(dwell.url, app, `${base(app)}/create`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
}

const atShop = (events: any[]) => events.filter((e) => e.venue.id === SHOP.id).map((e) => `${e.type}:${e.trigger_id}`);

test('create, read, update, list in pages and delete', async () => {
  const app = await createApp(dwell.url);
  const id = await create(app, { brand: 'Starbucks', radius: 40, dwell: 120, tag: 'coffee', push_text: 'A coffee?', metadata: { chain: 'sb', rank: 1, open: true } });
  assert.match(id, /^pt_[0-9a-f]{24}$/);
  const got = await signed(dwell.url, app, `${base(app)}/${id}`);
  assert.equal(got.status, 200);
  assert.deepEqual({ ...got.body, created_at: undefined, updated_at: undefined }, {
    id, brand: 'Starbucks', type_id: null, radius: 40, dwell: 120, tag: 'coffee', push_text: 'A coffee?',
    metadata: { chain: 'sb', rank: 1, open: true }, created_at: undefined, updated_at: undefined,
  });
  // Absent keeps, null or "" clears, a value replaces.
  const up = await signed(dwell.url, app, `${base(app)}/${id}/update`, { type_id: CAFES, radius: null, tag: '', metadata: null });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body, id);
  const after = (await signed(dwell.url, app, `${base(app)}/${id}`)).body;
  assert.deepEqual([after.brand, after.type_id, after.radius, after.dwell, after.tag, after.push_text, after.metadata], ['Starbucks', CAFES, null, 120, null, 'A coffee?', null]);
  // Clearing the brand of a trigger that still has a type is fine; clearing both is not.
  assert.equal((await signed(dwell.url, app, `${base(app)}/${id}/update`, { brand: null })).status, 200);
  const none = await signed(dwell.url, app, `${base(app)}/${id}/update`, { type_id: null });
  assert.equal(none.status, 400);
  assert.equal(none.body.error.path, '/brand');

  const ids = [id, await create(app, { type_id: 426 }), await create(app, { brand: 'Costa' })].sort();
  const page1 = await signed(dwell.url, app, `${base(app)}?limit=2`);
  assert.equal(page1.status, 200);
  assert.deepEqual(page1.body.place_triggers.map((t: any) => t.id), ids.slice(0, 2));
  const page2 = await signed(dwell.url, app, `${base(app)}?limit=2&cursor=${page1.body.next_cursor}`);
  assert.deepEqual(page2.body.place_triggers.map((t: any) => t.id), ids.slice(2));
  assert.equal(page2.body.next_cursor, null);

  const del = await signed(dwell.url, app, `${base(app)}/${id}/delete`, {});
  assert.deepEqual([del.status, del.body], [200, id]);
  for (const path of [`${base(app)}/${id}`, `${base(app)}/${id}/delete`, `${base(app)}/pt_000000000000000000000000`, `${base(app)}/nonsense`]) {
    // A body of its own each: the same signed bytes twice in a second would be a replay (contract §1).
    const r = await signed(dwell.url, app, path, path.endsWith('/delete') ? { again: path } : undefined);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.error.code, 'not_found');
  }
  assert.equal((await signed(dwell.url, app, `${base(app)}/${id}/update`, { tag: 'x' })).status, 404);
  // Another app neither reads nor lists them; nor may it use this app's path.
  const other = await createApp(dwell.url);
  assert.equal((await signed(dwell.url, other, `${base(other)}/${ids[1] === id ? ids[0] : ids[1]}`)).status, 404);
  assert.equal((await signed(dwell.url, other, base(app))).status, 403);
});

test('every bad field is a 400 at its path', async () => {
  const app = await createApp(dwell.url);
  const cases: Array<[Record<string, unknown> | unknown, string]> = [
    [{}, '/brand'],
    [{ brand: '' }, '/brand'],
    [{ brand: 7 }, '/brand'],
    [{ brand: 'x'.repeat(257) }, '/brand'],
    [{ type_id: 999_999 }, '/type_id'],
    [{ type_id: 1.5 }, '/type_id'],
    [{ type_id: '426' }, '/type_id'],
    [{ brand: 'Spar', radius: 9 }, '/radius'],
    [{ brand: 'Spar', radius: 1001 }, '/radius'],
    [{ brand: 'Spar', radius: 'far' }, '/radius'],
    [{ brand: 'Spar', dwell: -1 }, '/dwell'],
    [{ brand: 'Spar', dwell: 86_401 }, '/dwell'],
    [{ brand: 'Spar', dwell: 2.5 }, '/dwell'],
    [{ brand: 'Spar', tag: 'x'.repeat(257) }, '/tag'],
    [{ brand: 'Spar', push_text: 'x'.repeat(2049) }, '/push_text'],
    [{ brand: 'Spar', metadata: [] }, '/metadata'],
    [{ brand: 'Spar', metadata: { k: { nested: 1 } } }, '/metadata/k'],
    [{ brand: 'Spar', metadata: { k: 'x'.repeat(257) } }, '/metadata/k'],
    [{ brand: 'Spar', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i])) }, '/metadata'],
    [{ brand: 'Spar', colour: 'red' }, '/colour'],
  ];
  for (const [body, path] of cases) {
    const r = await signed(dwell.url, app, `${base(app)}/create`, body);
    assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path, path, JSON.stringify(r.body));
  }
  const notObject = await signed(dwell.url, app, `${base(app)}/create`, [1]);
  assert.equal(notObject.status, 400);
  assert.equal(notObject.body.error.code, 'invalid_json');
  const id = await create(app, { brand: 'Spar' });
  const bad = await signed(dwell.url, app, `${base(app)}/${id}/update`, { radius: 5000 });
  assert.deepEqual([bad.status, bad.body.error.path], [400, '/radius']);
  const cursor = await signed(dwell.url, app, `${base(app)}?cursor=zz`);
  assert.deepEqual([cursor.status, cursor.body.error.path], [400, '/cursor']);
  const limit = await signed(dwell.url, app, `${base(app)}?limit=0`);
  assert.deepEqual([limit.status, limit.body.error.path], [400, '/limit']);
});

test('an app holds at most 100 place triggers: the 101st is a 409 until one is deleted', async () => {
  const app = await createApp(dwell.url);
  const ids: string[] = [];
  for (let i = 0; i < 100; i++) ids.push(await create(app, { brand: `brand ${i}` }));
  const over = await signed(dwell.url, app, `${base(app)}/create`, { brand: 'one more' });
  assert.equal(over.status, 409, JSON.stringify(over.body));
  assert.equal(over.body.error.code, 'conflict');
  assert.equal((await signed(dwell.url, app, `${base(app)}?limit=1000`)).body.place_triggers.length, 100);
  assert.equal((await signed(dwell.url, app, `${base(app)}/${ids[0]}/delete`, {})).status, 200);
  await create(app, { brand: 'one more, again' });
});

test('entry, dwell and exit at a venue; two triggers matching it raise an event each', async () => {
  const app = await createApp(dwell.url);
  const byBrand = await create(app, { brand: 'STARBUCKS', radius: 50, dwell: 300, tag: 'coffee', push_text: 'A coffee?', metadata: { chain: 'sb' } });
  const byType = await create(app, { type_id: CAFES });
  const r = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'walker-p1', data: walk });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(atShop(r.body.place_events), [
    `entry:${byBrand}`, `entry:${byType}`, `dwell:${byBrand}`, `exit:${byBrand}`, `exit:${byType}`,
  ].sort((a, b) => order(a) - order(b)));
  const entry = r.body.place_events.find((e: any) => e.type === 'entry' && e.trigger_id === byBrand);
  assert.deepEqual(entry, {
    type: 'entry', trigger_id: byBrand, tag: 'coffee', push_text: 'A coffee?', metadata: { chain: 'sb' },
    venue: { id: SHOP.id, name: 'Starbucks', brand: 'Starbucks', category: 'Dining and Drinking', type_id: 426 },
    timestamp: walk[1].timestamp, location: { lat: SHOP.lat, long: SHOP.long, accuracy: 5 },
    ...(entry.integrity ? { integrity: entry.integrity } : {}),
  });
  // The dwell comes with the first fix at or after entry + 300 s (minute 8), the exits with minute 10.
  assert.equal(r.body.place_events.find((e: any) => e.type === 'dwell').timestamp, walk[3].timestamp);
  assert.equal(r.body.place_events.find((e: any) => e.type === 'exit' && e.trigger_id === byType).timestamp, walk[4].timestamp);
  // The same request again raises nothing: the fixes are not newer than what the user's presence holds.
  const again = await signed(dwell.url, app, '/v1/detect', { request_id: 'again', advertising_id: 'walker-p1', data: walk });
  assert.deepEqual(atShop(again.body.place_events), []);
});

/** entry < dwell < exit, whatever the trigger. */
const order = (s: string) => ['entry', 'dwell', 'exit'].indexOf(s.split(':')[0]);

test('presence and dwell count across requests, and one dwell a stay', async () => {
  const app = await createApp(dwell.url);
  const id = await create(app, { brand: 'starbucks', radius: 50, dwell: 300 });
  const send = async (fixes: unknown[]) => {
    const r = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'walker-p2', data: fixes });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return atShop(r.body.place_events);
  };
  assert.deepEqual(await send([far(0), at(2, SHOP.lat, SHOP.long)]), [`entry:${id}`]);
  // 4 minutes in: not yet. Straddling the edge (accuracy 80 m) changes nothing and is no exit.
  assert.deepEqual(await send([at(6, SHOP.lat, SHOP.long), at(6.5, SHOP.lat - 0.0003, SHOP.long, 80)]), []);
  assert.deepEqual(await send([at(7, SHOP.lat, SHOP.long)]), [`dwell:${id}`]);
  assert.deepEqual(await send([at(20, SHOP.lat, SHOP.long)]), []);
  assert.deepEqual(await send([far(22), at(24, SHOP.lat, SHOP.long)]), [`exit:${id}`, `entry:${id}`]);
  // The venue the user is in is theirs (contract §7): exported, then erased with them.
  const exported = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=walker-p2`);
  assert.equal(exported.status, 200, JSON.stringify(exported.body));
  assert.deepEqual(exported.body.users[0].place_presence.inside.map((p: any) => [p.trigger_id, p.venue_id, p.entered_at === new Date(Date.parse(at(24, 0, 0).timestamp)).toISOString(), p.dwell_raised]), [[id, SHOP.id, true, false]]);
  assert.equal((await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'walker-p2' })).status, 200);
  // The same GET again: signed a second later, or it would be a replay (contract §1).
  const after = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=walker-p2`, undefined, { timestamp: Math.floor(Date.now() / 1000) + 1 });
  assert.equal(after.status, 200, JSON.stringify(after.body));
  assert.equal(after.body.users[0].place_presence, undefined);
  // Erased, the user is new: at the shop again is an entry again.
  assert.deepEqual(await send([at(30, SHOP.lat, SHOP.long)]), [`entry:${id}`]);
});

test('no trigger, no event; a device without a user gets only the crossings within its request', async () => {
  const app = await createApp(dwell.url);
  const none = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'walker-p3', data: walk });
  assert.deepEqual(none.body.place_events, []);
  const id = await create(app, { brand: 'Starbucks', radius: 50 });
  const alone = await signed(dwell.url, app, '/v1/detect', { data: [at(0, SHOP.lat, SHOP.long), at(3, SHOP.lat, SHOP.long), far(6)] });
  assert.equal(alone.status, 200, JSON.stringify(alone.body));
  assert.deepEqual(atShop(alone.body.place_events), [`exit:${id}`]);
});

test('postback apps get place events at a real receiver, unless delivery.events leaves them out', async () => {
  const sink = await holdingReceiver();
  sink.open();
  try {
    const all = await createApp(dwell.url, { method: 'postback', url: sink.url });
    const visitsOnly = await createApp(dwell.url, { method: 'postback', url: sink.url, events: ['visit', 'transit', 'geofence'] });
    const id = await create(all, { brand: 'Starbucks', radius: 50 });
    await create(visitsOnly, { brand: 'Starbucks', radius: 50 });
    for (const app of [visitsOnly, all]) {
      const r = await signed(dwell.url, app, '/v1/detect', { request_id: `pt-${app.app_key}`, advertising_id: 'walker-p4', data: walk });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    const placeOf = (key: string) => sink.arrivals.filter((a) => a.body.data.user_info.app_key === key && a.body.data.place_event);
    await until('the place events at the receiver', () => placeOf(all.app_key).length >= 2);
    const events = placeOf(all.app_key).map((a) => a.body.data.place_event);
    assert.deepEqual(events.map((e) => `${e.type}:${e.trigger_id}:${e.venue.id}`).sort(), [`entry:${id}:${SHOP.id}`, `exit:${id}:${SHOP.id}`]);
    for (const a of placeOf(all.app_key)) assert.equal(a.body.data.visit, undefined);
    // The other app's visits arrived (it was sent first), and no place event with them.
    await until('the visits of the app without place events', () => sink.arrivals.some((a) => a.body.data.user_info.app_key === visitsOnly.app_key));
    assert.equal(placeOf(visitsOnly.app_key).length, 0);
  } finally {
    sink.close();
  }
});

test('deleting the app deletes its place triggers', async () => {
  const app = await createApp(dwell.url);
  await create(app, { brand: 'Starbucks' });
  await create(app, { type_id: CAFES });
  const res = await fetch(`${dwell.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as any).removed.place_triggers, 2);
});
