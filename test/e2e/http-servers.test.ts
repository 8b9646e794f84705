/**
 * The HTTP layer on both of its servers (src/http/listen.ts): uWebSockets.js's native build, and
 * node:http on a Node it has no build for (22, 24). A Node 20 run checks node:http too, by
 * starting Dwell with UWS_USE_FALLBACK=1 (uWebSockets.js's own switch to its stand-in, which
 * Dwell answers with node:http); on Node 24 both runs would be node:http, so the second is
 * skipped. Contract §5's answers while the client still sends, queries under the signature, a
 * large answer to a client that stops reading, and a client that leaves mid-upload.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { dwellWithApp } from '../helpers/dwell.js';
import { ROOT } from '../helpers/server.js';
import { signed, signHeaders } from '../helpers/client.js';
import { scrape } from '../helpers/scrape.js';
import { until } from '../helpers/until.js';

/** The installed uWebSockets.js (package.json) has a native binary for this Node. */
const NATIVE_HERE = existsSync(path.join(ROOT, 'node_modules/uWebSockets.js/binaries',
  `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`));

const SERVERS: Array<{ expect: string; env: Record<string, string>; skip: boolean }> = [
  { expect: NATIVE_HERE ? 'uWebSockets.js' : 'node:http', env: {}, skip: false },
  { expect: 'node:http', env: { UWS_USE_FALLBACK: '1' }, skip: !NATIVE_HERE },
];

const MiB = 1 << 20;

/** A raw connection and everything it has received so far, as text. */
async function open(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => {});
  let text = '';
  socket.on('data', (d) => (text += d.toString('latin1')));
  return { socket, received: () => text, closed: new Promise((r) => socket.once('close', r)) };
}

const requestsWith = (metrics: string, route: string, status: string) => {
  const line = metrics.split('\n').find((l) => l.startsWith('dwell_http_requests_total{') && l.includes(`route="${route}"`) && l.includes(`status="${status}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

for (const server of SERVERS) {
  describe(`HTTP on ${server.expect}${server.env.UWS_USE_FALLBACK ? ' (UWS_USE_FALLBACK=1)' : ''}`, { skip: server.skip && 'this Node has no native uWebSockets.js: the run above was node:http' }, () => {
    const dwell = dwellWithApp(server.env);

    test('the log says which server runs, in JSON like every other line', () => {
      const said = dwell.logs.map((l) => { try { return JSON.parse(l); } catch { return l; } });
      assert.deepEqual(said.filter((l) => typeof l === 'string'), [], 'no bare console output');
      const line = said.find((l) => l.msg === 'http server');
      assert.equal(line?.implementation, server.expect, JSON.stringify(line));
    });

    test('a signed GET with a query: the signature covers it, the handler reads it, the request id comes back', async () => {
      const base = `/v2/apps/${dwell.app.app_key}/geofences`;
      const bad = await signed(dwell.url, dwell.app, `${base}?limit=0`, undefined, { headers: { 'x-request-id': 'trace-42' } });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.equal(bad.body.error.path, '/limit');
      assert.equal(bad.headers.get('x-request-id'), 'trace-42');
      const good = await signed(dwell.url, dwell.app, `${base}?tag=none&limit=5`);
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.deepEqual(good.body.geofences, []);
      const wrong = await fetch(dwell.url + '/healthz', { method: 'PUT' });
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'GET');
    });

    test('413 by Content-Length is answered while the client still sends, the rest is read, the connection serves the next request', async () => {
      const c = await open(dwell.port);
      const size = 2 * MiB;
      const h = signHeaders(dwell.app, 'POST', '/v1/detect', Buffer.alloc(size, 0x20));
      c.socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n` +
        `X-App-Key: ${h['x-app-key']}\r\nX-Timestamp: ${h['x-timestamp']}\r\nX-Signature: ${h['x-signature']}\r\n\r\n`);
      c.socket.write(Buffer.alloc(64 << 10, 0x20));
      // The answer arrives with most of the body still unsent: the client holds it back until then.
      await until('the 413 before the body is sent', () => c.received().includes('"code":"body_too_large"'), 20_000, 10);
      assert.match(c.received(), /^HTTP\/1\.1 413 /);
      c.socket.write(Buffer.alloc(size - (64 << 10), 0x20));
      await until('the end of the 413', () => /\r\n0\r\n\r\n$/.test(c.received()), 20_000, 10);
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until('/healthz on the same connection', () => c.received().includes('"status":"ok"'), 20_000, 10);
      c.socket.end();
      await c.closed;
    });

    test('large answers to a client that stops reading: others are answered meanwhile, and every byte arrives once it reads', async () => {
      const asked = 12; // 12 × 1.1 MB of MapLibre, pipelined on one connection: more than the socket buffers hold
      const c = await open(dwell.port);
      c.socket.pause();
      c.socket.write('GET /ui/maplibre-gl.mjs HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(asked));
      await until('the server to be answering the stalled connection', async () => requestsWith(await scrape(dwell.url), '/ui/:file', '200') >= 1);
      for (let i = 0; i < 5; i++) assert.equal((await fetch(dwell.url + '/healthz')).status, 200, 'answered while one client does not read');
      c.socket.resume();
      const lengths = () => [...c.received().matchAll(/\r\nContent-Length: (\d+)\r\n/gi)].map((m) => Number(m[1]));
      const complete = () => {
        const heads = [...c.received().matchAll(/HTTP\/1\.1 200 [^\r]*\r\n[\s\S]*?\r\n\r\n/g)];
        const l = lengths();
        return heads.length === asked && l.length === asked && c.received().length === heads.reduce((n, m) => n + m[0].length, 0) + l.reduce((a, b) => a + b, 0);
      };
      await until(`${asked} whole answers`, complete, 60_000, 20);
      assert.ok(lengths().every((n) => n === lengths()[0] && n > MiB), JSON.stringify(lengths()));
      c.socket.end();
      await c.closed;
    });

    test('a client that leaves mid-upload is counted as gone (499); the answered ones are not', async () => {
      const before499 = requestsWith(await scrape(dwell.url), '/v1/detect', '499');
      for (let i = 0; i < 3; i++) {
        const r = await signed(dwell.url, dwell.app, '/v1/detect', { advertising_id: 'a', events: [] });
        assert.ok(r.status < 500, JSON.stringify(r.body));
      }
      assert.equal(requestsWith(await scrape(dwell.url), '/v1/detect', '499'), before499, 'answered requests are not counted as gone');
      const c = await open(dwell.port);
      const h = signHeaders(dwell.app, 'POST', '/v1/detect', Buffer.alloc(1000));
      c.socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n` +
        `X-App-Key: ${h['x-app-key']}\r\nX-Timestamp: ${h['x-timestamp']}\r\nX-Signature: ${h['x-signature']}\r\n\r\n{"advertising_id":`);
      await until('the upload to reach the server', async () => (await scrape(dwell.url)).includes('dwell_inflight_requests 2'), 20_000, 20);
      c.socket.destroy();
      await until('the request counted as gone', async () => requestsWith(await scrape(dwell.url), '/v1/detect', '499') === before499 + 1, 20_000, 20);
      assert.equal((await fetch(dwell.url + '/healthz')).status, 200);
    });
  });
}
