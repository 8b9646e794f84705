/**
 * Contract §4's fences by the thousand over HTTP: `dwell`, `metadata` and `external_id` on create,
 * update and in the record (each bound a 400 at its path), external_id unique within the app (409,
 * also under racing creates) and listed by `?external_id=`, the NDJSON import (upsert by
 * external_id, bad lines by number, over 100,000 lines 413 with nothing imported) and the `near`
 * search (nearest first, distance 0 inside, deleted and expired fences absent, pages by cursor).
 * Runs against a cluster pair too (test/run.ts CLUSTER_FILES): every request may reach either node.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, type SignOptions, type TestApp } from '../helpers/client.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';
import { DwellClient } from '../../src/client/index.js';

let dwell: Running;
before(async () => { dwell = await startDwell(TEST_CLOCK); });
after(() => dwell.stop());

const used = new Set<number>();
/** Every request signed at a second of its own: identical bodies (racing creates) are never replays. */
function stamp(): number {
  let t = Math.floor(Date.now() / 1000);
  while (used.has(t)) t--;
  used.add(t);
  return t;
}
const call = (app: TestApp, path: string, body?: unknown, opts: SignOptions = {}) => signed(dwell.url, app, path, body, { timestamp: stamp(), ...opts });
const base = (app: TestApp) => `/v2/apps/${app.app_key}/geofences`;
const create = async (app: TestApp, body: unknown) => {
  const r = await call(app, `${base(app)}/create`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
};
const read = async (app: TestApp, id: string) => (await call(app, `${base(app)}/${id}`)).body;
const list = async (app: TestApp, query: string) => {
  const r = await call(app, `${base(app)}?${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { geofences: any[]; next_cursor: string | null };
};
const refused = (r: { status: number; body: any }, status: number, code: string, path?: string) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error.code, code);
  if (path !== undefined) assert.equal(r.body.error.path, path, r.body.error.message);
};

const CIRCLE = { lat: 43.73976, long: 7.42766, radius: 150 };
const M_LAT = 1 / 111_195; // degrees of latitude a metre

test('dwell, metadata and external_id: on create, in the record, kept, changed and deleted by update', async () => {
  const app = await createApp(dwell.url);
  const plain = await read(app, await create(app, { location: CIRCLE, ttl: 0 }));
  assert.deepEqual([plain.dwell, plain.metadata, plain.external_id], [0, null, null], 'the defaults');
  const meta = { store: 'Monaco 1', floor: 2, open: true };
  const id = await create(app, { location: CIRCLE, ttl: 0, dwell: 300, metadata: meta, external_id: 'store-1' });
  const rec = await read(app, id);
  assert.deepEqual(Object.keys(rec), ['id', 'tag', 'location', 'ttl', 'push_text', 'dwell', 'metadata', 'external_id', 'created_at', 'updated_at', 'expires_at']);
  assert.deepEqual([rec.dwell, rec.metadata, rec.external_id], [300, meta, 'store-1']);
  assert.equal((await call(app, `${base(app)}/${id}/update`, { tag: 'x' })).status, 200);
  assert.deepEqual([(await read(app, id)).dwell, (await read(app, id)).metadata], [300, meta], 'absent fields keep their values');
  assert.equal((await call(app, `${base(app)}/${id}/update`, { dwell: 0, metadata: { a: 'b' }, external_id: 'store-1b' })).status, 200);
  assert.deepEqual([(await read(app, id)).dwell, (await read(app, id)).metadata, (await read(app, id)).external_id], [0, { a: 'b' }, 'store-1b']);
  assert.equal((await call(app, `${base(app)}/${id}/update`, { metadata: null, external_id: null })).status, 200);
  assert.deepEqual([(await read(app, id)).metadata, (await read(app, id)).external_id], [null, null], 'null deletes both');
  assert.deepEqual((await list(app, 'external_id=store-1b')).geofences, [], 'the removed external_id names nothing');
});

test('each new field\'s bounds: a 400 at its path', async () => {
  const app = await createApp(dwell.url);
  const id = await create(app, { location: CIRCLE, ttl: 0 });
  const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]));
  const cases: Array<[unknown, string]> = [
    [{ dwell: -1 }, '/dwell'], [{ dwell: 86_401 }, '/dwell'], [{ dwell: 1.5 }, '/dwell'], [{ dwell: '60' }, '/dwell'],
    [{ external_id: '' }, '/external_id'], [{ external_id: 'x'.repeat(257) }, '/external_id'], [{ external_id: 7 }, '/external_id'],
    [{ metadata: many }, '/metadata'], [{ metadata: [1] }, '/metadata'], [{ metadata: 'a' }, '/metadata'],
    [{ metadata: { ['k'.repeat(65)]: 1 } }, `/metadata/${'k'.repeat(65)}`], [{ metadata: { '': 1 } }, '/metadata/'],
    [{ metadata: { long: 'v'.repeat(257) } }, '/metadata/long'], [{ metadata: { nested: { a: 1 } } }, '/metadata/nested'],
    [{ metadata: { list: [1] } }, '/metadata/list'], [{ metadata: { none: null } }, '/metadata/none'],
  ];
  for (const [extra, path] of cases) {
    refused(await call(app, `${base(app)}/create`, { location: CIRCLE, ttl: 0, ...(extra as object) }), 400, 'invalid_request', path);
    refused(await call(app, `${base(app)}/${id}/update`, extra), 400, 'invalid_request', path);
  }
  // The bounds themselves are taken.
  const edge = { dwell: 86_400, external_id: 'x'.repeat(256), metadata: { ...Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i])), ['k'.repeat(64)]: 'v'.repeat(256) } };
  const ok = await read(app, await create(app, { location: CIRCLE, ttl: 0, ...edge }));
  assert.deepEqual([ok.dwell, ok.external_id, ok.metadata], [edge.dwell, edge.external_id, edge.metadata]);
});

test('external_id: unique within the app (409), listed by ?external_id=, free again once deleted', async () => {
  const [app, other] = [await createApp(dwell.url), await createApp(dwell.url)];
  const id = await create(app, { location: CIRCLE, ttl: 0, external_id: 'shop-7' });
  refused(await call(app, `${base(app)}/create`, { location: CIRCLE, ttl: 0, external_id: 'shop-7' }), 409, 'conflict', '/external_id');
  const second = await create(app, { location: CIRCLE, ttl: 0, external_id: 'shop-8' });
  refused(await call(app, `${base(app)}/${second}/update`, { external_id: 'shop-7' }), 409, 'conflict', '/external_id');
  assert.equal((await read(app, second)).external_id, 'shop-8', 'the refused update changed nothing');
  assert.equal((await call(app, `${base(app)}/${id}/update`, { external_id: 'shop-7', tag: 'same' })).status, 200, 'its own external_id again is no conflict');
  await create(other, { location: CIRCLE, ttl: 0, external_id: 'shop-7' }); // another app's are its own
  assert.deepEqual((await list(app, 'external_id=shop-7')).geofences.map((g) => g.id), [id]);
  assert.deepEqual((await list(app, 'external_id=nobody')).geofences, []);
  refused(await call(app, `${base(app)}?external_id=`), 400, 'invalid_request', '/external_id');
  assert.equal((await call(app, `${base(app)}/${id}/delete`, undefined, { method: 'POST' })).status, 200);
  assert.deepEqual((await list(app, 'external_id=shop-7')).geofences, []);
  const again = await create(app, { location: CIRCLE, ttl: 0, external_id: 'shop-7' });
  assert.deepEqual((await list(app, 'external_id=shop-7')).geofences.map((g) => g.id), [again]);
  // An expired fence holds its external_id no longer, whether or not the sweep has purged it.
  await create(app, { location: CIRCLE, ttl: 5, external_id: 'pop-up' });
  await advance(dwell, 6);
  assert.deepEqual((await list(app, 'external_id=pop-up')).geofences, []);
  const next = await create(app, { location: CIRCLE, ttl: 0, external_id: 'pop-up' });
  assert.deepEqual((await list(app, 'external_id=pop-up')).geofences.map((g) => g.id), [next]);
});

test('external_id: of eight racing creates, one wins and seven are 409', async () => {
  const app = await createApp(dwell.url);
  const answers = await Promise.all(Array.from({ length: 8 }, () => call(app, `${base(app)}/create`, { location: CIRCLE, ttl: 0, external_id: 'race' })));
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409]);
  const winner = answers.find((a) => a.status === 200)!.body;
  assert.deepEqual((await list(app, 'external_id=race')).geofences.map((g) => g.id), [winner]);
});

const ndjson = (rows: unknown[]) => Buffer.from(rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
const importRaw = (app: TestApp, raw: Buffer, gzip = false) =>
  call(app, `${base(app)}/import`, undefined, { method: 'POST', raw, gzip, headers: { 'content-type': 'application/x-ndjson', ...(gzip ? { 'content-encoding': 'gzip' } : {}) } });

test('import: good lines land, bad ones are reported by line, an existing external_id is updated', async () => {
  const app = await createApp(dwell.url);
  const kept = await create(app, { tag: 'old', location: CIRCLE, ttl: 0, dwell: 60, metadata: { k: 1 }, external_id: 'ext-1' });
  const rows = [
    { external_id: 'ext-1', tag: 'new' },                                   // 1: updates, the rest kept
    { external_id: 'ext-2', location: CIRCLE, ttl: 3600, dwell: 120 },      // 2: creates
    'not json',                                                             // 3
    '',                                                                     // 4: blank, counted
    { location: CIRCLE, ttl: 0, metadata: { x: 'y' } },                     // 5: creates, no external_id
    { location: CIRCLE, ttl: 0, dwell: 100_000 },                           // 6: bad dwell
    { external_id: 'ext-3', tag: 'no location' },                           // 7: names nothing and is no create
    { external_id: 'ext-2', push_text: 'hello' },                           // 8: updates line 2's
    { external_id: '', location: CIRCLE, ttl: 0 },                          // 9: "" is 400
  ];
  const r = await importRaw(app, gzipSync(ndjson(rows)), true);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([r.body.created, r.body.updated], [2, 2]);
  assert.deepEqual(r.body.errors.map((e: any) => [e.line, e.code]), [[3, 'invalid_json'], [6, 'invalid_request'], [7, 'invalid_request'], [9, 'invalid_request']]);
  assert.match(r.body.errors[1].message, /\/dwell/);
  const one = await read(app, kept);
  assert.deepEqual([one.tag, one.dwell, one.metadata, one.location], ['new', 60, { k: 1 }, CIRCLE], 'absent fields keep their values');
  const [two] = (await list(app, 'external_id=ext-2')).geofences;
  assert.deepEqual([two.ttl, two.dwell, two.push_text], [3600, 120, 'hello']);
  assert.equal((await list(app, 'limit=100')).geofences.length, 3);
  const plain = await importRaw(app, ndjson([{ external_id: 'ext-9', location: CIRCLE, ttl: 0 }]));
  assert.deepEqual([plain.status, plain.body.created, plain.body.errors], [200, 1, []], 'uncompressed NDJSON too');
  const wrong = await call(app, `${base(app)}/import`, undefined, { method: 'POST', raw: Buffer.from('{}'), headers: { 'content-type': 'text/csv' } });
  refused(wrong, 415, 'unsupported_media_type');
});

test('import: more than 100,000 lines is 413 and nothing is imported', async () => {
  const app = await createApp(dwell.url);
  const line = (i: number) => `{"location":{"lat":43.7,"long":7.4,"radius":50},"ttl":0,"external_id":"b${i}"}`;
  const body = gzipSync(Buffer.from(Array.from({ length: 100_001 }, (_, i) => line(i)).join('\n')));
  refused(await importRaw(app, body, true), 413, 'body_too_large');
  assert.deepEqual((await list(app, 'limit=10')).geofences, []);
});

test('near: live fences within the radius, nearest first, with distance (0 inside); pages by cursor', async () => {
  const app = await createApp(dwell.url);
  const P = { lat: 43.74, long: 7.42 };
  const at = (north: number) => ({ lat: P.lat + north * M_LAT, long: P.long });
  const inside = await create(app, { tag: 'a', location: { ...at(0), radius: 50 }, ttl: 0 });
  const far = await create(app, { tag: 'a', location: { ...at(700), radius: 100 }, ttl: 0 }); // edge 600 m away
  const mid = await create(app, { tag: 'b', location: { ...at(300), radius: 100 }, ttl: 0 }); // edge 200 m away
  const square = { polygon: [at(400), { ...at(400), long: P.long + 0.002 }, { ...at(500), long: P.long + 0.002 }, at(500)] };
  const poly = await create(app, { tag: 'a', location: square, ttl: 0 }); // its south edge 400 m away
  await create(app, { location: { ...at(3000), radius: 100 }, ttl: 0 }); // 2.9 km: outside the default 1 km
  const gone = await create(app, { location: { ...at(100), radius: 10 }, ttl: 0 });
  const expiring = await create(app, { location: { ...at(150), radius: 10 }, ttl: 60 });
  assert.equal((await call(app, `${base(app)}/${gone}/delete`, undefined, { method: 'POST' })).status, 200);
  await advance(dwell, 61);
  const r = await list(app, `near=${P.lat},${P.long}`);
  assert.deepEqual(r.geofences.map((g) => g.id), [inside, mid, poly, far], 'nearest first; deleted and expired absent');
  assert.ok(!r.geofences.some((g) => g.id === expiring));
  const d = r.geofences.map((g) => g.distance);
  assert.equal(d[0], 0);
  for (const [got, want] of [[d[1], 200], [d[2], 400], [d[3], 600]]) assert.ok(Math.abs(got - want) < 2, `distance ${got} ≈ ${want}`);
  assert.equal(r.geofences[1].tag, 'b', 'each item is the record plus its distance');
  assert.deepEqual((await list(app, `near=${P.lat},${P.long}&radius=250`)).geofences.map((g) => g.id), [inside, mid]);
  assert.deepEqual((await list(app, `near=${P.lat},${P.long}&tag=a`)).geofences.map((g) => g.id), [inside, poly, far]);
  const pages: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page: { geofences: any[]; next_cursor: string | null } = await list(app, `near=${P.lat},${P.long}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(...page.geofences.map((g) => g.id));
    cursor = page.next_cursor;
  }
  assert.deepEqual(pages, [inside, mid, poly, far]);
});

test('near: a bad point or radius is a 400 at the query parameter', async () => {
  const app = await createApp(dwell.url);
  for (const near of ['', '43.7', '91,7', '43.7,181', 'a,b', '43.7,7.4,1']) {
    refused(await call(app, `${base(app)}?near=${encodeURIComponent(near)}`), 400, 'invalid_request', '/near');
  }
  for (const radius of ['0', '100001', 'x', '-5']) {
    refused(await call(app, `${base(app)}?near=43.7,7.4&radius=${radius}`), 400, 'invalid_request', '/radius');
  }
  refused(await call(app, `${base(app)}?radius=10`), 400, 'invalid_request', '/near');
  refused(await call(app, `${base(app)}?near=43.7,7.4&cursor=zz`), 400, 'invalid_request', '/cursor');
  assert.deepEqual((await list(app, 'near=43.7,7.4&radius=100000')).geofences, [], 'an app without fences');
});

test('the customer client: import as a JSON array, list by external_id, search near a point', async () => {
  const app = await createApp(dwell.url);
  const client = new DwellClient({ url: dwell.url, appKey: app.app_key, appSecret: app.app_secret });
  const P = { lat: 43.75, long: 7.43 };
  const result = await client.geofences.import([
    { external_id: 'c-1', location: { ...P, radius: 30 }, ttl: 0, metadata: { shop: 1 } },
    { external_id: 'c-2', location: { lat: P.lat + 200 * M_LAT, long: P.long, radius: 30 }, ttl: 0 },
    { external_id: 'c-1', dwell: 60 },
  ]);
  assert.deepEqual(result, { created: 2, updated: 1, errors: [] });
  const [one] = (await client.geofences.list({ external_id: 'c-1' })).geofences;
  assert.deepEqual([one.dwell, one.metadata], [60, { shop: 1 }]);
  const near = await client.geofences.near({ ...P, radius: 500 });
  assert.deepEqual(near.geofences.map((g) => [g.external_id, Math.round(g.distance)]), [['c-1', 0], ['c-2', 170]]);
});
