/** Contract §4 over HTTP: the five geofence endpoints, update semantics row by row, binding to the signing app. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, type SignOptions, type TestApp } from '../helpers/client.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';

let dwell: Running;
let A: TestApp, B: TestApp;
before(async () => {
  // Time is moved, never waited for (helpers/clock.ts): TTLs here are minutes and hours.
  dwell = await startDwell(TEST_CLOCK);
  [A, B] = [await createApp(dwell.url), await createApp(dwell.url)];
});
after(() => dwell.stop());

// An identical request sent again gets an earlier timestamp, so it is never taken for a replay.
const lastTs = new Map<string, number>();
const call = (app: TestApp, path: string, body?: unknown, opts: SignOptions = {}) => {
  const key = `${app.app_key} ${opts.method ?? ''} ${path} ${JSON.stringify(body)}`;
  const ts = Math.min(Math.floor(Date.now() / 1000), (lastTs.get(key) ?? Infinity) - 1);
  lastTs.set(key, ts);
  return signed(dwell.url, app, path, body, { timestamp: ts, ...opts });
};
const base = (app: TestApp, owner = app) => `/v2/apps/${owner.app_key}/geofences`;
const create = async (app: TestApp, body: unknown) => {
  const r = await call(app, `${base(app)}/create`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
};
const read = async (app: TestApp, id: string) => (await call(app, `${base(app)}/${id}`)).body;
const update = (app: TestApp, id: string, body: unknown) => call(app, `${base(app)}/${id}/update`, body);

const CIRCLE = { lat: 43.73976, long: 7.42766, radius: 150 };
const SQUARE = { polygon: [{ lat: 43.73, long: 7.42 }, { lat: 43.73, long: 7.43 }, { lat: 43.74, long: 7.43 }, { lat: 43.74, long: 7.42 }] };
const FULL = { tag: 'casino', location: CIRCLE, ttl: 3600, push_text: 'Feeling lucky?' };

test('create answers the id as a JSON string; the record reads back', async () => {
  const id = await create(A, FULL);
  assert.match(id, /^gf_[0-9a-f]{24}$/);
  const rec = await read(A, id);
  assert.deepEqual(Object.keys(rec), ['id', 'tag', 'location', 'ttl', 'push_text', 'dwell', 'metadata', 'external_id', 'created_at', 'updated_at', 'expires_at']);
  assert.deepEqual({ ...rec, created_at: 0, updated_at: 0, expires_at: 0 }, { id, ...FULL, dwell: 0, metadata: null, external_id: null, created_at: 0, updated_at: 0, expires_at: 0 });
  assert.equal(Date.parse(rec.expires_at) - Date.parse(rec.created_at), 3_600_000);
  const plain = await call(A, `${base(A)}/create`, { location: SQUARE, ttl: 0 }, { gzip: false });
  assert.equal(plain.status, 200, 'an uncompressed body is accepted');
  assert.deepEqual(await read(A, plain.body), { ...(await read(A, plain.body)), tag: null, push_text: null, expires_at: null, location: SQUARE });
});

test('update: every row of the semantics table', async () => {
  const rows: Array<[string, unknown, (before: any, after: any) => void]> = [
    ['absent fields keep their values', {}, (b, a) => assert.deepEqual({ ...a, updated_at: 0 }, { ...b, updated_at: 0 })],
    ['tag "" deletes the tag', { tag: '' }, (b, a) => assert.deepEqual([a.tag, a.push_text], [null, b.push_text])],
    ['tag null deletes the tag', { tag: null }, (_b, a) => assert.equal(a.tag, null)],
    ['push_text "" deletes the text', { push_text: '' }, (b, a) => assert.deepEqual([a.push_text, a.tag], [null, b.tag])],
    ['push_text null deletes the text', { push_text: null }, (_b, a) => assert.equal(a.push_text, null)],
    ['a new tag replaces it, the rest kept', { tag: 'vip' }, (b, a) => assert.deepEqual({ ...a, tag: 0, updated_at: 0 }, { ...b, tag: 0, updated_at: 0 })],
    ['a new location replaces it', { location: SQUARE }, (b, a) => assert.deepEqual([a.location, a.expires_at], [SQUARE, b.expires_at])],
    ['a ttl restarts the clock from the update', { ttl: 60 }, (b, a) => {
      assert.equal(Date.parse(a.expires_at) - Date.parse(a.updated_at), 60_000);
      assert.equal(a.created_at, b.created_at);
    }],
    ['ttl 0: never expires', { ttl: 0 }, (_b, a) => assert.deepEqual([a.ttl, a.expires_at], [0, null])],
  ];
  for (const [name, body, check] of rows) {
    const id = await create(A, FULL);
    const beforeRec = await read(A, id);
    await advance(dwell, 1); // so that updated_at moves
    const r = await update(A, id, body);
    assert.equal(r.status, 200, name);
    assert.equal(r.body, id, name);
    const afterRec = await read(A, id);
    check(beforeRec, afterRec);
    assert.ok(afterRec.updated_at > beforeRec.updated_at, `${name}: updated_at moves`);
  }
  const id = await create(A, FULL);
  for (const [field, value] of [['location', null], ['location', ''], ['ttl', null], ['ttl', '']] as const) {
    const r = await update(A, id, { [field]: value });
    assert.equal(r.status, 400, `blank ${field}`);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path, `/${field}`);
    assert.match(r.body.error.message, /cannot be blank/);
  }
  assert.deepEqual((await read(A, id)).location, CIRCLE, 'a refused update changes nothing');
  const missing = await update(A, 'gf_000000000000000000000000', { tag: 'x' });
  assert.deepEqual([missing.status, missing.body.error.code], [404, 'not_found']);
  assert.equal((await update(A, 'not-an-id', { tag: 'x' })).status, 404);
});

test('an expired id is 404 everywhere once its ttl has passed on the server\'s clock, the others kept', async () => {
  const id = await create(A, { location: CIRCLE, ttl: 60 });
  const lasting = await create(A, { location: CIRCLE, ttl: 3600 });
  const forever = await create(A, { location: CIRCLE, ttl: 0 });
  const listed = async () => new Set((await call(A, `${base(A)}?limit=1000`)).body.geofences.map((g: { id: string }) => g.id));
  await advance(dwell, 50);
  assert.equal((await call(A, `${base(A)}/${id}`)).status, 200, '50 s into its minute');
  assert.ok((await listed()).has(id));
  await advance(dwell, 11);
  // Expiry is decided when read: no sweep needs to have run, so nothing is waited for.
  assert.equal((await call(A, `${base(A)}/${id}`)).status, 404, '61 s after it was made');
  assert.ok(!(await listed()).has(id), 'not listed either');
  assert.equal((await update(A, id, { tag: 'late' })).status, 404);
  assert.equal((await call(A, `${base(A)}/${id}/delete`, undefined, { method: 'POST' })).status, 404);
  for (const kept of [lasting, forever]) assert.equal((await call(A, `${base(A)}/${kept}`)).status, 200, 'a longer ttl and ttl 0 are kept');
});

test('the app in the path must be the signer (403); another app\'s geofence is 404', async () => {
  const theirs = await create(B, FULL);
  const paths: Array<[string, string, unknown?]> = [
    ['POST', `${base(A, B)}/create`, FULL], ['POST', `${base(A, B)}/${theirs}/update`, { tag: 'x' }],
    ['GET', `${base(A, B)}/${theirs}`], ['GET', base(A, B)], ['POST', `${base(A, B)}/${theirs}/delete`],
  ];
  for (const [method, path, body] of paths) {
    const r = await call(A, path, body, { method });
    assert.deepEqual([r.status, r.body.error?.code], [403, 'forbidden'], `${method} ${path}`);
  }
  assert.equal((await call(A, `${base(A)}/${theirs}`)).status, 404);
  assert.equal((await update(A, theirs, { tag: 'x' })).status, 404);
  assert.equal((await call(A, `${base(A)}/${theirs}/delete`, undefined, { method: 'POST' })).status, 404);
  assert.equal((await read(B, theirs)).tag, 'casino', 'untouched by A');
  const listed = (await call(A, `${base(A)}?limit=1000`)).body.geofences.map((g: any) => g.id);
  assert.equal(listed.includes(theirs), false);
});

test('delete answers the id, then the fence is gone', async () => {
  const id = await create(A, FULL);
  const r = await call(A, `${base(A)}/${id}/delete`, undefined, { method: 'POST' });
  assert.deepEqual([r.status, r.body], [200, id]);
  assert.equal((await call(A, `${base(A)}/${id}`)).status, 404);
  assert.equal((await call(A, `${base(A)}/${id}/delete`, undefined, { method: 'POST' })).status, 404);
});

test('list: by tag, in pages, with an opaque cursor', async () => {
  const C = await createApp(dwell.url);
  const ids = new Set<string>();
  for (let i = 0; i < 7; i++) ids.add(await create(C, { ...FULL, tag: i < 5 ? 'five' : 'two' }));
  const seen: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const r = await call(C, `${base(C)}?tag=five&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200);
    assert.ok(r.body.geofences.length <= 2);
    seen.push(...r.body.geofences.map((g: any) => g.id));
    cursor = r.body.next_cursor;
  }
  assert.equal(seen.length, 5);
  assert.ok(seen.every((id) => ids.has(id)));
  const all = await call(C, base(C));
  assert.deepEqual([all.body.geofences.length, all.body.next_cursor], [7, null]);
  for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'cursor=bogus']) {
    const r = await call(C, `${base(C)}?${q}`);
    assert.deepEqual([r.status, r.body.error.code], [400, 'invalid_request'], q);
  }
});

test('bodies: validation names the field; bad JSON and gzip are 400, other encodings 415', async () => {
  const cases: Array<[unknown, string]> = [
    [{ location: { ...CIRCLE, radius: 0 }, ttl: 0 }, '/location/radius'],
    [{ location: { ...CIRCLE, radius: 100_001 }, ttl: 0 }, '/location/radius'],
    [{ location: { ...CIRCLE, lat: 91 }, ttl: 0 }, '/location/lat'],
    [{ location: CIRCLE, ttl: -1 }, '/ttl'],
    [{ location: CIRCLE, ttl: 1.5 }, '/ttl'],
    [{ location: CIRCLE, ttl: 315_360_001 }, '/ttl'],
    [{ location: CIRCLE }, '/ttl'],
    [{ ttl: 0 }, '/location'],
    [{ location: { polygon: SQUARE.polygon.slice(0, 2) }, ttl: 0 }, '/location/polygon'],
    [{ location: { polygon: [SQUARE.polygon[0], SQUARE.polygon[2], SQUARE.polygon[1], SQUARE.polygon[3]] }, ttl: 0 }, '/location/polygon/2'],
    [{ location: CIRCLE, ttl: 0, tag: 7 }, '/tag'],
  ];
  for (const [body, path] of cases) {
    const r = await call(A, `${base(A)}/create`, body);
    assert.deepEqual([r.status, r.body.error?.code, r.body.error?.path], [400, 'invalid_request', path], JSON.stringify(body));
  }
  const array = await call(A, `${base(A)}/create`, [FULL]);
  assert.deepEqual([array.status, array.body.error.code, array.body.error.message], [400, 'invalid_json', 'expected a JSON object with location and ttl, got an array'], 'contract §5');
  const notJson = await call(A, `${base(A)}/create`, undefined, { raw: gzipSync('{nope'), method: 'POST' });
  assert.deepEqual([notJson.status, notJson.body.error.code], [400, 'invalid_json']);
  const notGzip = await call(A, `${base(A)}/create`, undefined, { raw: Buffer.from('{}'), method: 'POST' });
  assert.deepEqual([notGzip.status, notGzip.body.error.code], [400, 'invalid_gzip']);
  const brotli = await call(A, `${base(A)}/create`, FULL, { gzip: false, headers: { 'content-encoding': 'br' } });
  assert.deepEqual([brotli.status, brotli.body.error.code], [415, 'unsupported_media_type']);
});
