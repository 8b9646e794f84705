/**
 * The client's retries against a real HTTP server that answers as Dwell would when it is busy or
 * when it refuses: 503 with Retry-After then 200 is retried (re-signed, the wait honoured), a 400
 * or a 401 is not, 429 is, a closed port is retried and then reported.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { DwellApiError, DwellClient } from '../src/client/index.js';
import { bodySha256, signature } from '../src/signing.js';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }

/** Answers each request with the next of `script` (the last one repeats), recording what came. */
async function scripted(script: Array<{ status: number; headers?: Record<string, string>; body: unknown }>) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const step = script[Math.min(seen.length - 1, script.length - 1)];
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const error = (code: string, message: string) => ({ result: 'ERROR', error: { code, message } });
const client = (url: string) => new DwellClient({ url, appKey: 'k1', appSecret: 's1', retry: { baseDelayMs: 10 } });

let servers: Array<{ close(): Promise<void> }> = [];
before(() => { servers = []; });
after(async () => { await Promise.all(servers.map((s) => s.close())); });

test('503 with Retry-After: 1 then 200: retried once, after the wait, with a new signature over the same gzip bytes', async () => {
  const s = await scripted([
    { status: 503, headers: { 'retry-after': '1' }, body: error('unavailable', 'the venue store is still loading') },
    { status: 200, body: 'g-123' },
  ]);
  servers.push(s);
  const waits: number[] = [];
  const c = new DwellClient({ url: s.url, appKey: 'k1', appSecret: 's1', retry: { baseDelayMs: 10, wait: async (ms) => void waits.push(ms) } });
  const id = await c.geofences.create({ location: { lat: 43.7, long: 7.4, radius: 50 }, ttl: 60 });
  assert.equal(id, 'g-123');
  assert.equal(s.seen.length, 2);
  const [first, second] = s.seen;
  assert.equal(waits[0], 1000, 'the wait Retry-After: 1 asked for, before the second attempt');
  assert.deepEqual(first.body, second.body, 'the same bytes are sent again');
  assert.notEqual(first.headers['x-timestamp'], second.headers['x-timestamp'], 'each attempt has its own timestamp');
  for (const r of s.seen) {
    assert.equal(r.url, '/v2/apps/k1/geofences/create');
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(r.body).toString()), { location: { lat: 43.7, long: 7.4, radius: 50 }, ttl: 60 });
    const ts = String(r.headers['x-timestamp']);
    assert.equal(r.headers['x-signature'], signature('s1', ts, 'POST', r.url, bodySha256(r.body)), 'signed per contract §1');
  }
});

test('429 is retried until the server accepts', async () => {
  const s = await scripted([
    { status: 429, headers: { 'retry-after': '0' }, body: error('rate_limited', 'over the rate') },
    { status: 429, body: error('rate_limited', 'over the rate') },
    { status: 200, body: { geofences: [], next_cursor: null } },
  ]);
  servers.push(s);
  assert.deepEqual(await client(s.url).geofences.list({ tag: 'a b', limit: 5 }), { geofences: [], next_cursor: null });
  assert.equal(s.seen.length, 3);
  assert.equal(s.seen[0].url, '/v2/apps/k1/geofences?tag=a+b&limit=5');
  assert.equal(s.seen[0].method, 'GET');
});

test('a 400 is the server refusing the request: thrown at once with its code and path, never sent again', async () => {
  const s = await scripted([{ status: 400, body: { result: 'ERROR', error: { code: 'invalid_request', message: 'ttl is an integer', path: '/ttl' } } }]);
  servers.push(s);
  await assert.rejects(client(s.url).geofences.create({ location: { lat: 0, long: 0, radius: 5 }, ttl: -1 }), (err: unknown) => {
    assert.ok(err instanceof DwellApiError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'invalid_request');
    assert.equal(err.path, '/ttl');
    return true;
  });
  assert.equal(s.seen.length, 1);
});

test('401 and 500 are not retried either', async () => {
  for (const [status, code] of [[401, 'invalid_signature'], [500, 'internal']] as const) {
    const s = await scripted([{ status, body: error(code, 'no') }, { status: 200, body: 'never' }]);
    servers.push(s);
    await assert.rejects(client(s.url).geofences.delete('g1'), (err: unknown) => DwellClient.isError(err, code));
    assert.equal(s.seen.length, 1, `${status} sent once`);
  }
});

test('a Retry-After longer than the client will wait ends the retries with the 503', async () => {
  const s = await scripted([{ status: 503, headers: { 'retry-after': '3600' }, body: error('unavailable', 'shedding load') }]);
  servers.push(s);
  await assert.rejects(client(s.url).detect({ data: [] }), (err: unknown) => {
    assert.ok(err instanceof DwellApiError);
    assert.equal(err.code, 'unavailable');
    assert.equal(err.retryAfterS, 3600);
    return true;
  });
  assert.equal(s.seen.length, 1);
});

test('retries give up after the configured number and throw the last answer', async () => {
  const s = await scripted([{ status: 503, body: error('unavailable', 'starting') }]);
  servers.push(s);
  const c = new DwellClient({ url: s.url, appKey: 'k1', appSecret: 's1', retry: { retries: 2, baseDelayMs: 5 } });
  await assert.rejects(c.geofences.get('g1'), (err: unknown) => DwellClient.isError(err, 'unavailable'));
  assert.equal(s.seen.length, 3);
});

test('nothing listening: the connection error is retried, then thrown', async () => {
  const s = await scripted([{ status: 200, body: 'x' }]);
  await s.close(); // the port is now closed
  let calls = 0;
  const counting: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const c = new DwellClient({ url: s.url, appKey: 'k1', appSecret: 's1', retry: { retries: 2, baseDelayMs: 5 }, fetch: counting });
  await assert.rejects(c.geofences.get('g1'), (err: unknown) => err instanceof TypeError && !(err instanceof DwellApiError));
  assert.equal(calls, 3);
});
