/**
 * Contract §5 row by row: each error answered by the case that causes it, with its status, code
 * and (where it applies) JSON Pointer, and the process alive and well afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../helpers/server.js';
import { dwellWithApp, withDwellApp } from '../helpers/dwell.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed, signHeaders } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const dwell = dwellWithApp();
/** Rate-limited to 2 requests a second an app; each test below sends with apps of its own. */
const limited = dwellWithApp({ DWELL_RATE_LIMIT: '2' });

const errorOf = (r: { status: number; body: any }) => [r.status, r.body?.error?.code, r.body?.result];

function withEvents(mutate: (req: any) => void) {
  const req = visitRequest();
  mutate(req);
  return req;
}

// [name, request body, expected path]: each breaks one rule of contract §2.
const INVALID: Array<[string, unknown, string]> = [
  ['both events and data', { events: [], data: [] }, ''],
  ['neither events nor data', { request_id: 'x' }, ''],
  ['more than 10 events', withEvents((r) => { r.events = Array.from({ length: 11 }, (_, i) => ({ ...r.events[0], event_id: `e${i}` })); }), '/events'],
  ['lat out of range', withEvents((r) => { r.events[0].data[1].location.lat = 90.5; }), '/events/0/data/1/location/lat'],
  ['long out of range', withEvents((r) => { r.events[0].data[0].location.long = -181; }), '/events/0/data/0/location/long'],
  ['accuracy zero', withEvents((r) => { r.events[0].data[0].location.accuracy = 0; }), '/events/0/data/0/location/accuracy'],
  ['speed below -1', withEvents((r) => { r.events[0].data[0].location.speed = -2; }), '/events/0/data/0/location/speed'],
  ['speed -0.5', withEvents((r) => { r.events[0].data[0].location.speed = -0.5; }), '/events/0/data/0/location/speed'],
  ['timestamp without zone', withEvents((r) => { r.events[0].data[0].timestamp = '2024-05-06T07:28:00'; }), '/events/0/data/0/timestamp'],
  ['signal outside its event', withEvents((r) => { r.events[0].data[2].timestamp = '2024-05-06T09:28:00+02:00'; }), '/events/0/data/2/timestamp'],
  ['end before start', withEvents((r) => { r.events[0].end_time = '2024-05-06T07:00:00+02:00'; }), '/events/0/end_time'],
  ['duplicate event_id', withEvents((r) => { r.events.push({ ...r.events[0] }); }), '/events/2/event_id'],
  ['signal with no kind', withEvents((r) => { delete r.events[0].data[0].location; }), '/events/0/data/0'],
  ['bad bssid', withEvents((r) => { r.events[0].data[0].wifi_scan = [{ ssid: 'x', bssid: '12:34:56:78:9a', strength: -50, age: 0 }]; }), '/events/0/data/0/wifi_scan/0/bssid'],
  ['positive strength', withEvents((r) => { r.events[0].data[0].active_wifi = { ssid: 'x', bssid: '12:34:56:78:9a:bc', strength: 3 }; }), '/events/0/data/0/active_wifi/strength'],
  ['fractional age', withEvents((r) => { r.events[0].data[0].wifi_scan = [{ bssid: '12:34:56:78:9A:BC', strength: -50, age: 1.5 }]; }), '/events/0/data/0/wifi_scan/0/age'],
  ['more than 200 scan entries', withEvents((r) => { r.events[0].data[0].wifi_scan = Array.from({ length: 201 }, () => ({ bssid: '12:34:56:78:9a:bc', strength: -50 })); }), '/events/0/data/0/wifi_scan'],
  ['os not Android/iOS', withEvents((r) => { r.os = 'Windows'; }), '/os'],
  ['gender X', withEvents((r) => { r.gender = 'X'; }), '/gender'],
  ['yob in the future', withEvents((r) => { r.yob = new Date().getUTCFullYear() + 1; }), '/yob'],
  ['yob three digits', withEvents((r) => { r.yob = 999; }), '/yob'],
  ['custom_data over 4 KiB', withEvents((r) => { r.custom_data = { blob: 'x'.repeat(5000) }; }), '/custom_data'],
  ['custom_data not an object', withEvents((r) => { r.custom_data = 'hello'; }), '/custom_data'],
  ['type neither visit nor transit', withEvents((r) => { r.events[0].type = 'stay'; }), '/events/0/type'],
  ['event without data', withEvents((r) => { delete r.events[0].data; }), '/events/0/data'],
  ['more than 5000 signals', { data: Array.from({ length: 5001 }, () => ({ timestamp: '2024-05-06T07:28:00Z', location: { lat: 1, long: 1 } })) }, '/data'],
];

for (const [name, body, path] of INVALID) {
  test(`400 invalid_request: ${name}`, async () => {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', body);
    assert.deepEqual(errorOf(r), [400, 'invalid_request', 'ERROR'], JSON.stringify(r.body));
    assert.equal(r.body.error.path, path);
    assert.ok(r.body.error.message.length > 10, 'the message says what is wrong');
  });
}

test('400 invalid_request: a number that overflows to Infinity is not finite', async () => {
  const text = JSON.stringify(visitRequest()).replace('"accuracy":20', '"accuracy":1e999');
  const r = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw: gzipSync(text) });
  assert.deepEqual(errorOf(r), [400, 'invalid_request', 'ERROR']);
  assert.match(r.body.error.path, /accuracy$/);
});

test('400 invalid_request: custom_data nested 200,000 deep is refused, not a 500', async () => {
  const deep = '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000);
  const text = `{"custom_data":${deep},"data":[{"timestamp":"2024-05-06T07:28:00Z","location":{"lat":1,"long":1}}]}`;
  const r = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw: gzipSync(text) });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.path, '/custom_data');
});

test('400 invalid_request: metadata nested 20,000 deep, on a geofence, a place trigger and an import line, is refused, not a 500', async () => {
  const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
  const fences = `/v2/apps/${dwell.app.app_key}/geofences`;
  const json = (text: string) => ({ method: 'POST', raw: Buffer.from(text), gzip: false, headers: { 'content-type': 'application/json' } });
  const fence = await signed(dwell.url, dwell.app, `${fences}/create`, undefined, json(`{"location":{"lat":43.7,"long":7.4,"radius":50},"ttl":0,"metadata":${deep}}`));
  assert.deepEqual([fence.status, fence.body.error?.path], [400, '/metadata/a'], JSON.stringify(fence.body));
  const trigger = await signed(dwell.url, dwell.app, `/v2/apps/${dwell.app.app_key}/place-triggers/create`, undefined, json(`{"brand":"Monoprix","metadata":${deep}}`));
  assert.deepEqual([trigger.status, trigger.body.error?.path], [400, '/metadata/a'], JSON.stringify(trigger.body));
  const line = await signed(dwell.url, dwell.app, `${fences}/import`, undefined,
    { method: 'POST', raw: Buffer.from(`{"location":{"lat":43.7,"long":7.4,"radius":50},"ttl":0,"metadata":${deep}}\n`), gzip: false, headers: { 'content-type': 'application/x-ndjson' } });
  assert.equal(line.status, 200, JSON.stringify(line.body));
  assert.deepEqual(line.body.errors.map((e: { line: number; code: string }) => [e.line, e.code]), [[1, 'invalid_request']]);
});

test('400 invalid_request: a value that is one of several kinds says which, and shows at most 60 characters of what arrived', async () => {
  const r = await signed(dwell.url, dwell.app, `/v2/apps/${dwell.app.app_key}/place-triggers/create`, { brand: 'x'.repeat(1 << 20), radius: 20 });
  assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
  assert.match(r.body.error.message, /^brand: expected a string from 1 to 256 characters, or "", or null, got "x{56}\.\.\.$/);
  const radius = await signed(dwell.url, dwell.app, `/v2/apps/${dwell.app.app_key}/place-triggers/create`, { brand: 'Monoprix', radius: -1 });
  assert.equal(radius.body.error.message, 'radius: expected a number from 10 to 1000, or null, got -1');
});

test('400 invalid_request: a value of the wrong kind or a missing field says what is expected, not TypeBox\'s words', async () => {
  const body = visitRequest();
  body.events[0].data[0].location.mocked = 'yes';
  const mocked = await signed(dwell.url, dwell.app, '/v1/detect', body);
  assert.deepEqual([mocked.status, mocked.body.error.path, mocked.body.error.message], [400, '/events/0/data/0/location/mocked', 'mocked: expected a boolean, got "yes"']);
  const fence = await signed(dwell.url, dwell.app, `/v2/apps/${dwell.app.app_key}/geofences/create`, { tag: 't', location: { lat: 43.7, long: 7.4, radius: 50 } });
  assert.deepEqual([fence.status, fence.body.error.path], [400, '/ttl']);
  assert.match(fence.body.error.message, /^ttl: expected an integer from 0 to \d+ \(required\), got nothing$/);
});

test('400 invalid_request: a query parameter given twice is refused at its name, not answered for one of them', async () => {
  const base = `/v2/apps/${dwell.app.app_key}`;
  for (const path of [`${base}/geofences?near=43.7,7.4&near=48.8,2.3`, `${base}/geofences?limit=5&limit=500`, `${base}/place-triggers?limit=1&limit=2`, `${base}/beacons?limit=1&limit=2`]) {
    const r = await signed(dwell.url, dwell.app, path);
    const name = /\?(\w+)=/.exec(path)![1];
    assert.deepEqual([r.status, r.body.error?.code, r.body.error?.path, r.body.error?.message], [400, 'invalid_request', `/${name}`, `${name} is given once, got 2 values`], path);
  }
});

test('400 invalid_json: NaN, truncated JSON, invalid UTF-8, a bare array', async () => {
  for (const raw of ['{"data": NaN}', '{"events": [', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]) {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw: gzipSync(raw) });
    assert.deepEqual(errorOf(r), [400, 'invalid_json', 'ERROR'], String(raw));
  }
  // Contract §5: a body that is not an object is invalid_json, and the message says what arrived.
  for (const [body, got] of [[[1, 2], 'an array'], [null, 'null'], [7, 'a number (7)'], ['x', 'a string ("x")']] as const) {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', body);
    assert.deepEqual([...errorOf(r), r.body.error.message], [400, 'invalid_json', 'ERROR', `expected a JSON object, got ${got}`]);
  }
});

test('400 invalid_gzip: truncated gzip and bytes that are not gzip', async () => {
  const whole = gzipSync(JSON.stringify(visitRequest()));
  for (const raw of [whole.subarray(0, whole.length - 12), Buffer.from('{"data":[]}')]) {
    const r = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw });
    assert.deepEqual(errorOf(r), [400, 'invalid_gzip', 'ERROR']);
  }
});

test('401 missing_auth, unknown_app, invalid_signature, stale_timestamp, replayed_request', async () => {
  const bytes = gzipSync(JSON.stringify(visitRequest()));
  const post = (headers: Record<string, string>) => fetch(dwell.url + '/v1/detect', {
    method: 'POST', body: bytes, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json', ...headers },
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  assert.deepEqual(errorOf(await post({})), [401, 'missing_auth', 'ERROR']);
  const good = signHeaders(dwell.app, 'POST', '/v1/detect', bytes);
  assert.deepEqual(errorOf(await post({ ...good, 'x-signature': '' })), [401, 'missing_auth', 'ERROR']);
  assert.deepEqual(errorOf(await post({ ...good, 'x-app-key': 'ak_nobody' })), [401, 'unknown_app', 'ERROR']);
  assert.deepEqual(errorOf(await post(signHeaders(dwell.app, 'POST', '/v1/detect', bytes, { secret: 'not-the-secret' }))), [401, 'invalid_signature', 'ERROR']);
  // Signed over other bytes, or another path, or another method: each breaks the signature.
  assert.deepEqual(errorOf(await post(signHeaders(dwell.app, 'POST', '/v1/detect', Buffer.from('x')))), [401, 'invalid_signature', 'ERROR']);
  assert.deepEqual(errorOf(await post(signHeaders(dwell.app, 'POST', '/v1/detect?x=1', bytes))), [401, 'invalid_signature', 'ERROR']);
  const old = Math.floor(Date.now() / 1000) - 301;
  assert.deepEqual(errorOf(await post(signHeaders(dwell.app, 'POST', '/v1/detect', bytes, { timestamp: old }))), [401, 'stale_timestamp', 'ERROR']);
  const future = Math.floor(Date.now() / 1000) + 301;
  assert.deepEqual(errorOf(await post(signHeaders(dwell.app, 'POST', '/v1/detect', bytes, { timestamp: future }))), [401, 'stale_timestamp', 'ERROR']);

  const once = signHeaders(dwell.app, 'POST', '/v1/detect', bytes);
  assert.equal((await post(once)).status, 200);
  assert.deepEqual(errorOf(await post(once)), [401, 'replayed_request', 'ERROR']);
});

test('404 not_found and 405 method_not_allowed', async () => {
  const missing = await fetch(dwell.url + '/v1/nothing-here');
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as any).error.code, 'not_found');
  const wrong = await fetch(dwell.url + '/v1/detect');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'POST');
  assert.equal(((await wrong.json()) as any).error.code, 'method_not_allowed');
});

test('413 body_too_large: over 1 MiB as sent, and a gzip bomb over 16 MiB inflated', async () => {
  const big = Buffer.alloc((1 << 20) + 1, 0x20);
  const r1 = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw: big, gzip: false }).catch((e) => ({ status: 0, body: String(e) }));
  // The server may close the connection after answering early; either way it must not accept it.
  if (r1.status !== 0) assert.deepEqual(errorOf(r1), [413, 'body_too_large', 'ERROR']);
  const bomb = gzipSync(Buffer.alloc((16 << 20) + 1, 0x20));
  assert.ok(bomb.length < 1 << 20, 'the bomb is small as sent');
  const r2 = await signed(dwell.url, dwell.app, '/v1/detect', undefined, { raw: bomb });
  assert.deepEqual(errorOf(r2), [413, 'body_too_large', 'ERROR']);
});

test('415 unsupported_media_type: brotli, and a body that is not JSON', async () => {
  const r1 = await signed(dwell.url, dwell.app, '/v1/detect', visitRequest(), { headers: { 'content-encoding': 'br' } });
  assert.deepEqual(errorOf(r1), [415, 'unsupported_media_type', 'ERROR']);
  const r2 = await signed(dwell.url, dwell.app, '/v1/detect', visitRequest(), { headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(errorOf(r2), [415, 'unsupported_media_type', 'ERROR']);
});

test('an uncompressed JSON body without Content-Encoding is accepted', async () => {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', visitRequest(), { gzip: false });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result, 'SUCCESS');
});

test('a body that never finishes does not stall other requests', async () => {
  const bytes = gzipSync(JSON.stringify(visitRequest()));
  const h = signHeaders(dwell.app, 'POST', '/v1/detect', bytes);
  const socket = connect(dwell.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n` +
    `X-App-Key: ${h['x-app-key']}\r\nX-Timestamp: ${h['x-timestamp']}\r\nX-Signature: ${h['x-signature']}\r\n` +
    `Content-Length: ${bytes.length}\r\n\r\n`);
  socket.write(bytes.subarray(0, 20));
  const other = await signed(dwell.url, dwell.app, '/v1/detect', { ...visitRequest(), request_id: 'another' });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  socket.destroy();
  assert.equal((await fetch(dwell.url + '/healthz')).status, 200);
});

test('10,000 bad requests in a row leave the server answering and memory near its baseline', async () => {
  const rss = async () => {
    const text = await scrape(dwell.url);
    return Number(/^process_resident_memory_bytes (\d+)/m.exec(text)![1]);
  };
  const bad = gzipSync(JSON.stringify(visitRequest()));
  const headers = { 'content-encoding': 'gzip', 'content-length': String(bad.length), 'x-app-key': dwell.app.app_key, 'x-timestamp': String(Math.floor(Date.now() / 1000)), 'x-signature': 'ab'.repeat(32) };
  // node:http on 32 kept-alive sockets, as fetch would open, but at a quarter of fetch's CPU in
  // this process (measured: 1.4 s against 5.9 s for 10,000): the server gets the same requests.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const post = () => new Promise<number>((resolve, reject) => {
    const req = http.request(dwell.url + '/v1/detect', { method: 'POST', headers, agent }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode!)).on('error', reject);
    });
    req.on('error', reject).end(bad);
  });
  const warm = async (n: number) => {
    let next = 0;
    const worker = async () => {
      while (next++ < n) assert.equal(await post(), 401);
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  };
  let baseline: number;
  let afterwards: number;
  try {
    await warm(1000);
    baseline = await rss();
    await warm(10_000);
    afterwards = await rss();
  } finally {
    agent.destroy();
  }
  assert.ok(afterwards < baseline + 64 * 1024 * 1024, `rss grew from ${baseline} to ${afterwards}`);
  const ok = await signed(dwell.url, dwell.app, '/v1/detect', visitRequest());
  assert.equal(ok.status, 200);
});

test('429 rate_limited with Retry-After, per app', async () => {
  const a = limited.app;
  const b = await createApp(limited.url);
  // Distinct requests: the same one again within a second would be a replay, refused first.
  const distinct = (i: number) => ({ ...visitRequest(), request_id: `req-${i}` });
  // Sent at once: one after the other, on a busy machine each answer can take long enough for the
  // bucket to refill (2 a second) and none is refused. Eight at once against a burst of two.
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => signed(limited.url, a, '/v1/detect', distinct(i))));
  const refused = answers.filter((r) => r.status === 429);
  assert.ok(refused.length >= 1, `codes ${answers.map((r) => r.status)}`);
  for (const r of refused) {
    assert.deepEqual(errorOf(r), [429, 'rate_limited', 'ERROR']);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  }
  assert.equal((await signed(limited.url, b, '/v1/detect', visitRequest())).status, 200, 'another app is not limited');
});

test('requests that are not correctly signed do not spend the app\'s rate limit', async () => {
  const a = await createApp(limited.url);
  // Anyone who knows the app key can send these: unsigned, badly signed, stale.
  const bad = await Promise.all(Array.from({ length: 20 }, (_, i) => signed(limited.url, a, '/v1/detect', visitRequest(),
    i % 2 ? { secret: `not-the-secret-${i}` } : { headers: { 'x-signature': 'ab'.repeat(32) } })));
  assert.deepEqual([...new Set(bad.map(errorOf).map(String))], ['401,invalid_signature,ERROR']);
  const r = await signed(limited.url, a, '/v1/detect', visitRequest());
  assert.equal(r.status, 200, `a correctly signed request after 20 bad ones: ${JSON.stringify(r.body)}`);
});

test('503 unavailable with Retry-After while the venue store is missing; /readyz says so', async () => {
  await withDwellApp({ DWELL_VENUES: tempDir('dwell-novenues-') }, async (starting) => {
    const a = starting.app;
    const r = await signed(starting.url, a, '/v1/detect', visitRequest());
    assert.deepEqual(errorOf(r), [503, 'unavailable', 'ERROR']);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    const ready = await fetch(starting.url + '/readyz');
    assert.equal(ready.status, 503);
    const body = (await ready.json()) as any;
    assert.deepEqual([body.error.code, body.checks.venue_store], ['unavailable', 'loading']);
    assert.match(body.error.message, /venue store/);
    assert.equal((await fetch(starting.url + '/healthz')).status, 200, 'alive while not ready');
  }, { ready: false });
});
