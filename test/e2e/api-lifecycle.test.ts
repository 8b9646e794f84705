/** Health, readiness, metrics and the SIGTERM drain, against the real process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { ADMIN_TOKEN, startDwell } from '../helpers/server.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed, signHeaders } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

test('healthz, readyz and Prometheus metrics', async () => {
  const dwell = await startDwell();
  try {
    assert.equal((await fetch(dwell.url + '/healthz')).status, 200);
    const ready = await fetch(dwell.url + '/readyz');
    assert.equal(ready.status, 200);
    const readyBody = (await ready.json()) as any;
    assert.ok(readyBody.venues > 100, 'the bundled Monaco venues are served');
    assert.deepEqual(readyBody.checks, { venue_store: 'open', workers: 'warm', delivery: 'running', server: 'serving', secrets: 'unsealed' });
    const app = await createApp(dwell.url);
    await signed(dwell.url, app, '/v1/detect', visitRequest());
    const res = await fetch(dwell.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^dwell_http_requests_total\{route="\/v1\/detect",status="200"\} 1$/m);
    assert.match(text, /^dwell_http_request_duration_seconds_bucket\{le="\+Inf",route="\/v1\/detect"\} 1$/m);
    assert.match(text, /^dwell_detections_total\{kind="structured",outcome="transit"\} 1$/m);
    assert.match(text, /^dwell_detect_queue_depth \d+$/m);
  } finally {
    await dwell.stop();
  }
});

test('SIGTERM lets an in-flight request finish, then exits 0', async () => {
  const dwell = await startDwell();
  const app = await createApp(dwell.url);
  const bytes = gzipSync(JSON.stringify(visitRequest()));
  const h = signHeaders(app, 'POST', '/v1/detect', bytes);
  const socket = connect(dwell.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.write(`POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n` +
    `X-App-Key: ${h['x-app-key']}\r\nX-Timestamp: ${h['x-timestamp']}\r\nX-Signature: ${h['x-signature']}\r\n` +
    `Content-Length: ${bytes.length}\r\n\r\n`);
  socket.write(bytes.subarray(0, 10));
  // The metrics request counts itself: two in flight means the detection's headers are in.
  await until('the detection in flight', async () => {
    const m = /^dwell_inflight_requests (\d+)$/m.exec(await scrape(dwell.url));
    return m !== null && Number(m[1]) >= 2;
  });
  const exited = dwell.stop('SIGTERM');
  await until('the server draining', () => dwell.logs.some((l) => l.includes('"draining"')));
  // While draining, new work is refused: a new connection is not accepted, and a request on a
  // kept-alive one is answered 503.
  await assert.rejects(new Promise((resolve, reject) => {
    const probe = connect(dwell.port, '127.0.0.1');
    probe.once('connect', () => { probe.destroy(); resolve(null); });
    probe.once('error', reject);
  }));
  const late = await fetch(dwell.url + '/v1/detect', { method: 'POST' }).then((r) => r.status, () => 'refused');
  assert.ok(late === 503 || late === 'refused', `late request answered ${late}`);
  socket.write(bytes.subarray(10));
  assert.equal(await exited, 0);
  assert.match(answer, /^HTTP\/1\.1 200 OK/);
  assert.match(answer, /"result":"SUCCESS"/);
  socket.destroy();
});

test('SIGTERM while the workers are still warming up exits 0', { timeout: 60_000 }, async (t) => {
  const dwell = await startDwell({ DWELL_WARM_UP: 'on' }, { ready: false });
  // Straight after `listening` the workers run their warm-up detections (server/warm-up.ts).
  const warming = !dwell.logs.some((l) => l.includes('"detection workers warm"'));
  assert.equal(await dwell.stop('SIGTERM'), 0);
  assert.ok(dwell.logs.some((l) => l.includes('"stopped"')), 'the drain finished');
  if (!warming) t.diagnostic('warm-up had already finished when SIGTERM was sent');
});
