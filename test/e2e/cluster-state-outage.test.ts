/**
 * Contract §8, failure behaviour of cluster state, with real nats-server processes: all of NATS
 * gone → signed requests answer 503 `unavailable` with Retry-After (never 500, never a hang) and
 * /readyz says not ready; NATS back → 200 again without restarting Dwell. One of three NATS
 * servers killed → the service goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDwell } from '../helpers/server.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { publishSample } from '../helpers/cluster.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

let n = 0;
/** A fresh user each time, so each request writes a user record of its own. */
const detect = (url: string, app: TestApp) => signed(url, app, '/v1/detect', { ...visitRequest(), advertising_id: `outage-${n++}` });

test('NATS unreachable: 503 unavailable with Retry-After and not ready; back by itself when NATS returns', async () => {
  const nats = await startNatsCluster(1);
  await publishSample(nats);
  const dwell = await startDwell({ DWELL_STATE: nats.urls });
  try {
    const app = await createApp(dwell.url);
    assert.equal((await detect(dwell.url, app)).status, 200);

    await nats.nodes[0].stop('SIGKILL');
    const down = await detect(dwell.url, app);
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.error.code, 'unavailable');
    assert.match(down.headers.get('retry-after') ?? '', /^\d+$/);
    await until('readyz to say not ready', async () => (await fetch(dwell.url + '/readyz')).status === 503);
    const geofence = await signed(dwell.url, app, `/v2/apps/${app.app_key}/geofences`);
    assert.equal(geofence.status, 503, 'a read of cluster state too');

    await nats.nodes[0].start();
    await until('a detection to be served again', async () => (await detect(dwell.url, app)).status === 200);
    assert.equal((await fetch(dwell.url + '/readyz')).status, 200);
    assert.equal(dwell.proc.exitCode, null, 'the same Dwell process');
    // The outage is reported by readyz and 503s; the sweeps that could not run say so as warnings.
    assert.deepEqual(dwell.logs.filter((l) => l.includes('"level":"error"') && l.includes('sweep')), []);
  } finally {
    await dwell.stop();
    await nats.stop();
  }
});

test('one of three NATS servers killed: the service goes on', async () => {
  const nats = await startNatsCluster(3);
  await publishSample(nats);
  const dwell = await startDwell({ DWELL_STATE: nats.urls });
  try {
    const app = await createApp(dwell.url);
    assert.equal((await detect(dwell.url, app)).status, 200);
    await nats.nodes[1].stop('SIGKILL');
    // Streams led by the lost server elect a new leader among the two left; meanwhile their
    // requests answer 503 (never 500). Users spread over four partitions: eight in a row served.
    await until('every partition to serve with one server down', async () => {
      for (let i = 0; i < 8; i++) {
        const r = await detect(dwell.url, app);
        // On a 500 the node's own error log names the call that was not mapped to 503.
        assert.ok(r.status === 200 || r.status === 503, `${r.status} ${JSON.stringify(r.body)}\n${dwell.logs.filter((l) => l.includes('"level":"error"')).slice(-3).join('\n')}`);
        if (r.status !== 200) return false;
      }
      return true;
    });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await detect(dwell.url, app)).status);
    assert.deepEqual(statuses, Array(10).fill(200));
    // The apps' and fences' buckets may have been led by the lost server too: 503 while they
    // elect, then served.
    const other = await until('an app to be created with one server down', async () => {
      const res = await fetch(dwell.url + '/admin/apps', {
        method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'after-loss', delivery: { method: 'sync' } }),
      });
      assert.ok(res.status === 201 || res.status === 503, `${res.status} ${await res.clone().text()}`);
      return res.status === 201 && ((await res.json()) as TestApp);
    });
    await until('a geofence to be created with one server down', async () => {
      const fence = await signed(dwell.url, other, `/v2/apps/${other.app_key}/geofences/create`, { tag: 't', push_text: null, ttl: 0, location: { lat: 43.7, long: 7.4, radius: 50 } });
      assert.ok(fence.status === 200 || fence.status === 503, `${fence.status} ${JSON.stringify(fence.body)}`);
      return fence.status === 200;
    });
  } finally {
    await dwell.stop();
    await nats.stop();
  }
});
