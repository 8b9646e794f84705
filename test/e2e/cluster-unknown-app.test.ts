/**
 * Contract §8: a request through a node that has not seen its app yet (created through another
 * node a moment ago) is answered as on a node that has; and a key no node holds costs the cluster
 * one read, not one per request. Node B reaches NATS through a relay (helpers/tcp-tap.ts) that
 * can hold back what NATS sends it: B asks the cluster about the app while the app's watch message
 * waits, with no race against B's watch.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { publishSample } from '../helpers/cluster.js';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, signHeaders, type TestApp } from '../helpers/client.js';
import { tcpTap, type TcpTap } from '../helpers/tcp-tap.js';
import { until } from '../helpers/until.js';

let nats: NatsCluster, tap: TcpTap, A: Running, B: Running;
before(async () => {
  nats = await startNatsCluster(1);
  await publishSample(nats);
  const u = new URL(nats.urls);
  tap = await tcpTap({ host: u.hostname, port: Number(u.port) });
  [A, B] = await Promise.all([startDwell({ DWELL_STATE: nats.urls, DWELL_WORKERS: '1' }), startDwell({ DWELL_STATE: tap.url, DWELL_WORKERS: '1' })]);
});
after(async () => {
  tap?.release();
  await Promise.all([A?.stop(), B?.stop()]);
  await tap?.close();
  await nats?.stop();
});

const occurrences = (text: string, s: string) => text.split(s).length - 1;

/** An app created through A while B hears nothing from NATS; `send` starts B's request; B's answer once it has asked the cluster. */
async function unseenByB<T>(send: (app: TestApp) => Promise<T>): Promise<T> {
  tap.hold();
  let app: TestApp;
  try {
    app = await createApp(A.url);
  } catch (err) {
    tap.release();
    throw err;
  }
  const before = occurrences(tap.sent(), app.app_key);
  const answer = send(app);
  await until('B asks the cluster for the app', () => occurrences(tap.sent(), app.app_key) > before);
  tap.release();
  return answer;
}

test('a bulk import through a node that has not seen the app yet is read under the import\'s cap, not the default 1 MiB', async () => {
  const line = (i: number) => `{"uuid":"f7826da6-4fa2-4e98-8024-bc5b71e0893e","major":1,"minor":${i},"location":{"lat":43.7,"long":7.4}}${' '.repeat(1000)}`;
  const body = Buffer.from(Array.from({ length: 1200 }, (_, i) => line(i)).join('\n'));
  assert.ok(body.length > 1 << 20);
  const r = await unseenByB((app) => signed(B.url, app, `/v2/apps/${app.app_key}/beacons/import`, undefined,
    { raw: body, gzip: false, headers: { 'content-type': 'application/x-ndjson' } }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([r.body.created, r.body.errors.length], [1200, 0]);
});

test('a media type the route refuses is answered without reading the body, also on a node that has not seen the app yet', { timeout: 120_000 }, async () => {
  // The body is announced and never sent: only an answer that does not wait for it arrives.
  const r = await unseenByB((app) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    const bytes = Buffer.alloc(1000, 'x');
    const req = http.request(`${B.url}/v1/detect`, {
      method: 'POST',
      headers: { ...signHeaders(app, 'POST', '/v1/detect', bytes), 'content-type': 'text/plain', 'content-length': String(bytes.length) },
    }, (res) => {
      // The answer is written before the body it refused has arrived: complete once it parses.
      let text = '';
      res.setEncoding('utf8').on('data', (c) => {
        text += c;
        try {
          resolve({ status: res.statusCode!, body: JSON.parse(text) });
          req.destroy();
        } catch { /* more to come */ }
      });
    });
    req.on('error', (err) => { if (!req.destroyed) reject(err); });
    req.flushHeaders();
  }));
  assert.deepEqual([r.status, r.body.error.code], [415, 'unsupported_media_type']);
});

test('a key no node holds is asked of the cluster once, not once a request, and is refused 401 every time', async () => {
  const stranger: TestApp = { app_key: 'ak_' + randomBytes(12).toString('hex'), app_secret: randomBytes(32).toString('hex'), delivery: {} };
  for (let i = 0; i < 20; i++) {
    const r = await signed(B.url, stranger, '/v1/detect', { events: [] }, { timestamp: Math.floor(Date.now() / 1000) - i });
    assert.deepEqual([r.status, r.body.error.code], [401, 'unknown_app']);
  }
  assert.equal(occurrences(tap.sent(), stranger.app_key), 1, 'reads of the key sent to NATS');
});

test('an app delete that fails on the cluster leaves the app served by the node that tried it, as it is still stored', async () => {
  const app = await createApp(B.url);
  const before = occurrences(tap.sent(), app.app_key);
  tap.hold();
  let status: number;
  try {
    const answer = fetch(`${B.url}/admin/apps/${app.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await until('B asks the cluster to delete the app', () => occurrences(tap.sent(), app.app_key) > before);
    // NATS answers nothing until released: the delete gives up (503) with the app still stored.
    status = (await answer).status;
  } finally {
    tap.release();
  }
  assert.equal(status, 503);
  for (const node of [B, A]) {
    const shown = await fetch(`${node.url}/admin/apps/${app.app_key}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(shown.status, 200, `the operator sees the app through ${node === B ? 'B' : 'A'}`);
    const r = await signed(node.url, app, `/v2/apps/${app.app_key}/beacons`);
    assert.equal(r.status, 200, `through ${node === B ? 'B' : 'A'}: ${JSON.stringify(r.body)}`);
  }
});
