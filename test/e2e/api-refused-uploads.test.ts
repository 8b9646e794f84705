/**
 * Contract §5: a request refused before its body is read (413 by Content-Length, 401, 415) is
 * answered while the client is still sending, and the client reads that answer: never a
 * "fetch failed" from a connection reset under an upload in progress. It is a race, so each case
 * is sent many times over, ten uploads at once, the way Node's fetch (undici) sends them, in
 * rounds of the size at hand (about 1 MiB) and of 3.5 MiB: the larger the upload, the longer the
 * client is still writing when the answer comes (within the 4 MiB the service discards).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { dwellWithApp } from '../helpers/dwell.js';
import { signHeaders } from '../helpers/client.js';
import { until } from '../helpers/until.js';

const dwell = dwellWithApp();

const ROUNDS = 16;
const AT_ONCE = 10;
const MiB = 1 << 20;

/** Sends the bodies in turn, AT_ONCE at a time in parallel, `rounds` times; answers every outcome. */
async function upload(sizes: number[], headers: (body: Buffer, i: number) => Record<string, string>, rounds = ROUNDS): Promise<string[]> {
  const bodies = sizes.map((size) => Buffer.alloc(Math.floor(size), 0x20));
  const outcomes: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const body = bodies[round % bodies.length];
    outcomes.push(...await Promise.all(Array.from({ length: AT_ONCE }, async (_, i) => {
      try {
        const r = await fetch(dwell.url + '/v1/detect', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers(body, round * AT_ONCE + i) } });
        const json = (await r.json()) as any;
        return `${r.status} ${json.error?.code}`;
      } catch (err) {
        return `${body.length} B: ${(err as Error).message} (${String((err as any).cause?.code ?? (err as any).cause?.message)})`;
      }
    })));
  }
  return outcomes;
}

const tally = (outcomes: string[]) => {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${n} × ${o}`).join(', ');
};

const LARGE = 3.5 * MiB;

test('413 body_too_large by Content-Length: every signed upload of 1.1 MiB (or 3.5 MiB) reads its answer', async () => {
  const outcomes = await upload([1.1 * MiB, LARGE], (body) => signHeaders(dwell.app, 'POST', '/v1/detect', body));
  assert.deepEqual(outcomes.filter((o) => o !== '413 body_too_large'), [], tally(outcomes));
});

test('401 before the body (unknown app, stale timestamp) and after it (wrong secret) reads its answer', async () => {
  const stale = Math.floor(Date.now() / 1000) - 3600;
  const before = [
    (body: Buffer, i: number) => signHeaders(dwell.app, 'POST', '/v1/detect', body, { timestamp: stale - i }),
    (body: Buffer) => ({ ...signHeaders(dwell.app, 'POST', '/v1/detect', body), 'x-app-key': 'ak_nobody' }),
  ];
  const early = await upload([MiB, LARGE], (body, i) => before[i % 2](body, i));
  assert.deepEqual(early.filter((o) => !/^401 (stale_timestamp|unknown_app)$/.test(o)), [], tally(early));
  // A wrong signature is known only once the body is in: 1 MiB, the most a body may be.
  const late = await upload([MiB], (body, i) => signHeaders(dwell.app, 'POST', '/v1/detect', body, { secret: `wrong-${i}` }), 4);
  assert.deepEqual(late.filter((o) => o !== '401 invalid_signature'), [], tally(late));
});

test('415 unsupported_media_type on a 1 MiB (or 3.5 MiB) body reads its answer', async () => {
  const outcomes = await upload([MiB, LARGE], (body) => ({ ...signHeaders(dwell.app, 'POST', '/v1/detect', body), 'content-encoding': 'br' }));
  assert.deepEqual(outcomes.filter((o) => o !== '415 unsupported_media_type'), [], tally(outcomes));
});

test('413 while streaming: a chunked body past 1 MiB is answered, read to its end, and the connection serves the next request', async () => {
  const socket = connect(dwell.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let answer = '';
  socket.on('data', (d) => (answer += d));
  const closed = new Promise((r) => socket.once('close', r));
  socket.on('error', () => {});
  const h = signHeaders(dwell.app, 'POST', '/v1/detect', Buffer.alloc(0));
  socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
    `X-App-Key: ${h['x-app-key']}\r\nX-Timestamp: ${h['x-timestamp']}\r\nX-Signature: ${h['x-signature']}\r\n\r\n`);
  const chunk = Buffer.alloc(64 << 10, 0x20);
  for (let sent = 0; sent < 1.5 * MiB; sent += chunk.length) {
    socket.write(chunk.length.toString(16) + '\r\n');
    socket.write(chunk);
    socket.write('\r\n');
  }
  socket.write('0\r\n\r\n');
  // The body ended within the discard bound: the answer is complete and the connection stays
  // open for the next request.
  await until('the end of the 413', () => /\r\n0\r\n\r\n$/.test(answer), 20_000, 10);
  assert.match(answer, /^HTTP\/1\.1 413 /);
  assert.match(answer, /"code":"body_too_large"/);
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  await until('the answer to /healthz on the same connection', () => /"status":"ok"/.test(answer), 20_000, 10);
  socket.end();
  await closed;
});
