/**
 * Contract §9 over HTTP: the beacon registry as the geofence endpoints (absent keeps, blank
 * deletes, 409 on a duplicate, 403/404 between apps, list by tag with pages), the bulk import
 * with its per-line errors, app deletion, and a detection that a registered beacon decides.
 * `npm run test:cluster` runs it unchanged against two nodes behind a round-robin proxy
 * (helpers/cluster.ts): consecutive requests reach different nodes, so each read checks another
 * node's write.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startDwell, ADMIN_TOKEN, type Running } from '../helpers/server.js';
import { createApp, signed, type SignOptions, type TestApp } from '../helpers/client.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';

let dwell: Running;
let A: TestApp, B: TestApp;
before(async () => {
  dwell = await startDwell(TEST_CLOCK); // time is moved so that updated_at moves, never slept for
  [A, B] = [await createApp(dwell.url), await createApp(dwell.url)];
});
after(() => dwell.stop());

const lastTs = new Map<string, number>();
/** An identical request sent again gets an earlier timestamp, so it is never taken for a replay. */
const call = (app: TestApp, path: string, body?: unknown, opts: SignOptions = {}) => {
  const key = `${app.app_key} ${path} ${JSON.stringify(body)} ${opts.raw?.toString('base64') ?? ''}`;
  const ts = Math.min(Math.floor(Date.now() / 1000), (lastTs.get(key) ?? Infinity) - 1);
  lastTs.set(key, ts);
  return signed(dwell.url, app, path, body, { timestamp: ts, ...opts });
};
const base = (app: TestApp) => `/v2/apps/${app.app_key}/beacons`;
const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
const CLOTHES = 'n5765808355', WINE = 'n5765826653';
let minor = 100;
const fresh = (over: Record<string, unknown> = {}) => ({ uuid: UUID, major: 1, minor: minor++, venue_id: CLOTHES, tag: 'store', ...over });
const create = async (app: TestApp, body: unknown) => {
  const r = await call(app, `${base(app)}/create`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
};
const read = async (app: TestApp, id: string) => (await call(app, `${base(app)}/${id}`)).body;

test('create answers the id; the record reads back, uuid in lower case', async () => {
  const body = fresh({ uuid: UUID.toUpperCase(), location: { lat: 43.73287, long: 7.41835 } });
  const id = await create(A, body);
  assert.match(id, /^bc_[0-9a-f]{24}$/);
  const rec = await read(A, id);
  assert.deepEqual(Object.keys(rec), ['id', 'uuid', 'major', 'minor', 'venue_id', 'location', 'tag', 'created_at', 'updated_at']);
  assert.deepEqual({ ...rec, created_at: 0, updated_at: 0 }, { id, ...body, uuid: UUID, created_at: 0, updated_at: 0 });
  const placeOnly = await create(A, { uuid: UUID, major: 2, minor: 1, location: { lat: 43.7, long: 7.4 } });
  assert.deepEqual([(await read(A, placeOnly)).venue_id, (await read(A, placeOnly)).tag], [null, null]);
});

test('refused: no venue nor location, a venue the store does not have, a bad field; 409 on a duplicate', async () => {
  for (const [body, path] of [
    [{ uuid: UUID, major: 1, minor: 1 }, ''], [fresh({ venue_id: 'n-nowhere' }), '/venue_id'],
    [fresh({ uuid: 'nope' }), '/uuid'], [fresh({ minor: 65536 }), '/minor'], [fresh({ location: { lat: 0 } }), '/location/long'],
  ] as const) {
    const r = await call(A, `${base(A)}/create`, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual([r.body.error.code, r.body.error.path], ['invalid_request', path], JSON.stringify(r.body));
  }
  const dup = fresh();
  await create(A, dup);
  const again = await call(A, `${base(A)}/create`, { ...dup, uuid: UUID.toUpperCase(), venue_id: WINE });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'conflict');
  // Another app may register the same beacon: registries are per app.
  await create(B, dup);
});

test('update: absent keeps, blank deletes an optional field, blank identity is 400, a taken identity 409', async () => {
  const rows: Array<[string, Record<string, unknown>, (b: any, a: any) => void]> = [
    ['absent fields keep their values', {}, (b, a) => assert.deepEqual({ ...a, updated_at: 0 }, { ...b, updated_at: 0 })],
    ['tag "" deletes the tag', { tag: '' }, (b, a) => assert.deepEqual([a.tag, a.venue_id], [null, b.venue_id])],
    ['tag null deletes the tag', { tag: null }, (_b, a) => assert.equal(a.tag, null)],
    ['location null deletes it, the venue kept', { location: null }, (b, a) => assert.deepEqual([a.location, a.venue_id], [null, b.venue_id])],
    ['venue_id "" deletes it, the location kept', { venue_id: '' }, (b, a) => assert.deepEqual([a.venue_id, a.location], [null, b.location])],
    ['a new minor and venue replace them', { minor: 9999, venue_id: WINE }, (b, a) => assert.deepEqual({ ...a, minor: 0, venue_id: 0, updated_at: 0 }, { ...b, minor: 0, venue_id: 0, updated_at: 0 })],
  ];
  for (const [name, patch, check] of rows) {
    const id = await create(A, fresh({ location: { lat: 43.7, long: 7.4 } }));
    const b = await read(A, id);
    await advance(dwell, 1); // so that updated_at moves
    const r = await call(A, `${base(A)}/${id}/update`, patch);
    assert.deepEqual([r.status, r.body], [200, id], `${name}: ${JSON.stringify(r.body)}`);
    const a = await read(A, id);
    check(b, a);
    assert.ok(a.updated_at > b.updated_at, `${name}: updated_at moves`);
    await call(A, `${base(A)}/${id}/delete`, {});
  }
  const id = await create(A, fresh());
  for (const f of ['uuid', 'major', 'minor']) {
    const r = await call(A, `${base(A)}/${id}/update`, { [f]: null });
    assert.deepEqual([r.status, r.body.error.path], [400, `/${f}`]);
  }
  const neither = await call(A, `${base(A)}/${id}/update`, { venue_id: null });
  assert.equal(neither.status, 400, 'a beacon keeps a venue or a location');
  const taken = fresh();
  await create(A, taken);
  const clash = await call(A, `${base(A)}/${id}/update`, { minor: taken.minor });
  assert.equal(clash.status, 409);
  assert.equal((await call(A, `${base(A)}/bc_${'0'.repeat(24)}/update`, { tag: 'x' })).status, 404);
});

test('apps are isolated: 403 for another app in the path, 404 for another app\'s id', async () => {
  const id = await create(A, fresh());
  const forbidden = await call(B, `${base(A)}/create`, fresh());
  assert.deepEqual([forbidden.status, forbidden.body.error.code], [403, 'forbidden']);
  assert.equal((await call(B, `${base(A)}/${id}`)).status, 403);
  for (const [path, body] of [[`${base(B)}/${id}`, undefined], [`${base(B)}/${id}/update`, { tag: 'x' }], [`${base(B)}/${id}/delete`, {}]] as const) {
    const r = await call(B, path, body);
    assert.deepEqual([r.status, r.body.error.code], [404, 'not_found'], path);
  }
  assert.equal((await read(A, id)).id, id, 'untouched');
  const del = await call(A, `${base(A)}/${id}/delete`, {});
  assert.deepEqual([del.status, del.body], [200, id]);
  assert.equal((await call(A, `${base(A)}/${id}`)).status, 404);
  assert.equal((await call(A, `${base(A)}/${id}/delete`, {})).status, 404);
});

test('list: by tag, in pages that join up with next_cursor', async () => {
  const app = await createApp(dwell.url);
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await create(app, fresh({ tag: i % 2 ? 'odd' : 'even' })));
  const seen: string[] = [];
  let cursor = '';
  for (let page = 0; page < 5; page++) {
    const r = await call(app, `${base(app)}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200);
    seen.push(...r.body.beacons.map((b: { id: string }) => b.id));
    if (!r.body.next_cursor) break;
    cursor = r.body.next_cursor;
  }
  assert.deepEqual(seen, [...ids].sort());
  const odd = await call(app, `${base(app)}?tag=odd`);
  assert.deepEqual(odd.body.beacons.map((b: { id: string }) => b.id).sort(), [ids[1], ids[3]].sort());
  assert.equal((await call(app, `${base(app)}?limit=0`)).status, 400);
  assert.equal((await call(app, `${base(app)}?cursor=zz`)).status, 400);
});

const ndjson = (rows: unknown[]) => Buffer.from(rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
const importRaw = (app: TestApp, raw: Buffer, headers: Record<string, string>) =>
  call(app, `${base(app)}/import`, undefined, { method: 'POST', raw, headers, gzip: headers['content-encoding'] === 'gzip' });

test('import: NDJSON (gzip or not) and JSON arrays; bad lines reported by number, a matching identity updates', async () => {
  const app = await createApp(dwell.url);
  const kept = await create(app, { uuid: UUID, major: 50, minor: 1, venue_id: CLOTHES, tag: 'old' });
  const rows = [
    { uuid: UUID, major: 50, minor: 2, venue_id: CLOTHES },
    '{"uuid": "broken',
    { uuid: UUID, major: 50, minor: 1, venue_id: WINE },
    '',
    { uuid: UUID, major: 70000, minor: 3, venue_id: CLOTHES },
    { uuid: UUID, major: 50, minor: 4, venue_id: 'n-nowhere' },
    { uuid: UUID, major: 50, minor: 5 },
    { uuid: UUID.toUpperCase(), major: 50, minor: 6, location: { lat: 43.73, long: 7.41 }, tag: 'door' },
  ];
  const r = await importRaw(app, gzipSync(ndjson(rows)), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([r.body.created, r.body.updated], [2, 1]);
  assert.deepEqual(r.body.errors.map((e: { line: number; code: string }) => [e.line, e.code]),
    [[2, 'invalid_json'], [5, 'invalid_request'], [6, 'invalid_request'], [7, 'invalid_request']]);
  assert.ok(r.body.errors.every((e: { message: string }) => e.message.length > 0));
  assert.match(r.body.errors[1].message, /major/);
  const updated = await read(app, kept);
  assert.deepEqual([updated.venue_id, updated.tag], [WINE, 'old'], 'the line names no tag: the tag is kept');

  const asArray = await importRaw(app, Buffer.from(JSON.stringify([{ uuid: UUID, major: 51, minor: 1, venue_id: CLOTHES }, { uuid: 'x' }])), { 'content-type': 'application/json' });
  assert.equal(asArray.status, 200, JSON.stringify(asArray.body));
  assert.deepEqual([asArray.status, asArray.body.created, asArray.body.errors.map((e: { line: number }) => e.line)], [200, 1, [2]]);
  const plain = await importRaw(app, ndjson([{ uuid: UUID, major: 52, minor: 1, venue_id: CLOTHES }]), { 'content-type': 'application/x-ndjson' });
  assert.deepEqual([plain.status, plain.body.created], [200, 1]);
  const list = await call(app, `${base(app)}?limit=1000`);
  assert.equal(list.body.beacons.length, 5, 'the kept one, two created by the first import, one by each of the others');
  const wrongType = await importRaw(app, ndjson([]), { 'content-type': 'text/csv' });
  assert.equal(wrongType.status, 415);
});

/** A stay between the two shops (6 m apart) whose fixes cannot tell them apart. */
const stay = (user: string, scan?: Array<Record<string, unknown>>) => {
  const data = Array.from({ length: 10 }, (_, i) => ({
    timestamp: `2024-05-06T14:${String(10 + i).padStart(2, '0')}:00+02:00`,
    location: { lat: 43.73289 + ((i % 3) - 1) * 0.00004, long: 7.41832 + ((i % 4) - 1.5) * 0.00004, accuracy: 15 + (i % 3) * 5 },
    ...(scan ? { beacon_scan: scan } : {}),
  }));
  return { advertising_id: user, events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp, end_time: data[9].timestamp, data }] };
};
const topOf = (r: { status: number; body: any }) => {
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data[0].visit.place.venues.map((v: { id: string; probability: number }) => [v.id, Math.round(v.probability * 1000) / 1000]);
};

test('detection: a beacon of this app decides between two shops 6 m apart; another app\'s beacon changes nothing', async () => {
  // Four fresh apps, one request each: what one app learns never reaches another.
  const [app, plain, other, ignored] = [await createApp(dwell.url), await createApp(dwell.url), await createApp(dwell.url), await createApp(dwell.url)];
  const wineBeacon = { uuid: UUID, major: 900, minor: 1, rssi: -78, tx_power: -59 };
  await create(app, { uuid: UUID, major: 900, minor: 1, venue_id: WINE });
  // `other` registers a beacon of its own far away; the wine shop's is not in its registry.
  await create(other, { uuid: UUID, major: 901, minor: 1, location: { lat: 43.7393, long: 7.4275 } });
  const before = topOf(await call(plain, '/v1/detect', stay('u1')));
  assert.notEqual(before[0][0], WINE, `the fixes alone favour another venue: ${JSON.stringify(before.slice(0, 3))}`);
  const withBeacon = topOf(await call(app, '/v1/detect', stay('u1', [wineBeacon])));
  assert.equal(withBeacon[0][0], WINE);
  // Decisive, not certain: a phone by the shared wall hears a neighbour's beacon as loud as inside (docs/ranking.md "Beacons").
  assert.ok(withBeacon[0][1] > 0.6 && withBeacon[0][1] > 2 * withBeacon[1][1], JSON.stringify(withBeacon.slice(0, 3)));
  assert.deepEqual(topOf(await call(other, '/v1/detect', stay('u1', [wineBeacon]))), before);
  assert.deepEqual(topOf(await call(ignored, '/v1/detect', stay('u1', [wineBeacon]))), before, 'an app without a registry');
});

test('deleting an app removes its beacons', async () => {
  const app = await createApp(dwell.url);
  await create(app, fresh());
  await create(app, fresh());
  const r = await fetch(`${dwell.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = await r.json() as { removed: { beacons: number } };
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(body.removed.beacons, 2, JSON.stringify(body));
});

// Last: in the cluster suite its 100,000 writes are then replayed by every thread's watch of the
// registry, and the tests before it need not share the NATS servers with that.
test('import: 100,000 lines are taken in one request, one more is refused', async () => {
  const app = await createApp(dwell.url);
  const line = (i: number) => `{"uuid":"${UUID}","major":${i >> 16},"minor":${i & 0xffff},"location":{"lat":43.7,"long":7.4}}`;
  const body = (n: number) => gzipSync(Buffer.from(Array.from({ length: n }, (_, i) => line(i)).join('\n')));
  const tooMany = await importRaw(app, body(100_001), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
  assert.deepEqual([tooMany.status, tooMany.body.error?.code], [400, 'invalid_request']);
  const full = await importRaw(app, body(100_000), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
  assert.deepEqual([full.status, full.body.created, full.body.errors.length], [200, 100_000, 0]);
});
