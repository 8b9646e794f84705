/**
 * /metrics as an operator meets it (contract §6): on the public port only with the admin token,
 * and, when DWELL_METRICS_PORT is set, on an internal listener without one. What it serves parses
 * as Prometheus text and holds the process metrics, the dwell_* series, and the counts the
 * delivery worker thread reports across to the main thread.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDwell, withDwellApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { parseExposition } from '../helpers/prom-text.js';
import { until } from '../helpers/until.js';

test('public /metrics: refused without the admin token, Prometheus text with it; the internal listener needs none', async () => {
  await withDwellApp({ DWELL_METRICS_PORT: '0' }, async (dwell) => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${Buffer.from('x:' + ADMIN_TOKEN).toString('base64')}` }]) {
      const res = await fetch(dwell.url + '/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      const body = await res.text();
      assert.equal(JSON.parse(body).result, 'ERROR');
      assert.ok(!body.includes('dwell_'), 'no metric leaks with the refusal');
    }

    const app = dwell.app;
    assert.equal((await signed(dwell.url, app, '/v1/detect', visitRequest())).status, 200);
    // A postback app whose receiver refuses connections: its attempts are counted in the delivery worker thread.
    const down = await createApp(dwell.url, { method: 'postback', url: 'http://127.0.0.1:9/hook' });
    assert.equal((await signed(dwell.url, down, '/v1/detect', visitRequest())).status, 202);

    const res = await fetch(dwell.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const parsed = parseExposition(await res.text());
    const names = new Set(parsed.samples.map((s) => s.name));
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds',
      'dwell_http_requests_total', 'dwell_http_request_duration_seconds_bucket', 'dwell_detections_total', 'dwell_outbox_pending', 'dwell_venues']) {
      assert.ok(names.has(name), `${name} is exposed`);
    }
    const detect = parsed.samples.find((s) => s.name === 'dwell_http_requests_total' && s.labels.route === '/v1/detect' && s.labels.status === '200');
    assert.equal(detect?.value, 1);

    const line = dwell.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'metrics listening');
    assert.ok(line, 'the internal listener says where it is');
    assert.equal(line.host, '127.0.0.1');
    const internal = `http://127.0.0.1:${line.port}`;
    assert.equal((await fetch(internal + '/v1/detect', { method: 'POST' })).status, 404, 'only /metrics on the internal listener');
    const worker = await until('the delivery worker\'s attempts on the internal listener', async () => {
      const r = await fetch(internal + '/metrics');
      assert.equal(r.status, 200);
      const s = parseExposition(await r.text()).samples;
      return s.find((x) => x.name === 'dwell_postback_attempts_total' && x.labels.outcome === 'network_error') && s;
    });
    assert.ok(worker.some((s) => s.name === 'dwell_http_requests_total' && s.labels.route === '/metrics' && s.labels.status === '401'), 'the refusals were counted');
  });
});

test('without DWELL_ADMIN_TOKEN the public /metrics answers 401 whatever is sent', async () => {
  await withDwell({ DWELL_ADMIN_TOKEN: '' }, async (dwell) => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer ' }, { authorization: 'Bearer anything' }]) {
      assert.equal((await fetch(dwell.url + '/metrics', { headers })).status, 401);
    }
  });
});
