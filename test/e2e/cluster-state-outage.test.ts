/**
 * Contract §8, failure behaviour of cluster state, with real nats-server processes: all of NATS
 * gone → signed requests answer 503 `unavailable` with Retry-After (never 500, never a hang) and
 * /readyz says not ready; NATS back → 200 again without restarting Dwell. One of three NATS
 * servers killed with SIGKILL under load → once JetStream has elected leaders on the two left,
 * no request is refused (the node reconnects and retries within the request's time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDwell } from '../helpers/server.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { publishSample } from '../helpers/cluster.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';
import { connectNats } from '../../src/state/nats/connect.js';

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

/** Every stream (buckets included) answers its info with a leader other than `lost`: JetStream has elected again. */
async function leadersElected(urls: string, lost: string): Promise<boolean> {
  let ns: Awaited<ReturnType<typeof connectNats>> | undefined;
  try {
    ns = await connectNats(urls.split(','), { name: 'outage-test' });
    let streams = 0;
    for await (const si of ns.jsm.streams.list()) {
      if (si.config.num_replicas < 2) continue; // a single copy (none of Dwell's state on three servers) stays where it was
      streams++;
      const info = await ns.jsm.streams.info(si.config.name);
      if (!info.cluster?.leader || info.cluster.leader === lost) return false;
    }
    return streams > 0;
  } catch {
    return false;
  } finally {
    await ns?.close();
  }
}

test('one of three NATS servers killed under load: after the re-election every request is answered 2xx', { timeout: 240_000 }, async () => {
  const nats = await startNatsCluster(3);
  await publishSample(nats);
  const dwell = await startDwell({ DWELL_STATE: nats.urls });
  try {
    const app = await createApp(dwell.url);
    assert.equal((await detect(dwell.url, app)).status, 200);
    // Bounded load: four clients, each sending its next detection once the last is answered.
    const answered: Array<{ at: number; status: number; body: unknown }> = [];
    let elected = Infinity;
    let stop = false;
    const client = async () => {
      let after = 0;
      while (!stop || after < 10) {
        const at = Date.now();
        const r = await detect(dwell.url, app);
        answered.push({ at, status: r.status, body: r.body });
        if (at >= elected) after++;
      }
    };
    const clients = Promise.all([client(), client(), client(), client()]);
    try {
      await until('some detections answered before the kill', () => answered.length >= 8);
      await nats.nodes[1].stop('SIGKILL');
      await until('JetStream to elect leaders on the two servers left', () => leadersElected(nats.urls, 'n1'), 60_000, 250);
    } finally {
      elected = Date.now();
      stop = true;
      await clients;
    }
    // During the election a request may wait (a node retries within its time) or, at worst, be refused with 503: never a 500.
    const errors = () => dwell.logs.filter((l) => l.includes('"level":"error"')).slice(-5).join('\n');
    for (const a of answered) assert.ok(a.status === 200 || a.status === 503, `${a.status} ${JSON.stringify(a.body)}\n${errors()}`);
    const late = answered.filter((a) => a.at >= elected);
    assert.ok(late.length >= 40, `${late.length} requests sent after the re-election`);
    assert.deepEqual(late.filter((a) => a.status !== 200), [], 'none refused once JetStream has its leaders');
    // The apps' and fences' buckets answer at the first try too.
    const res = await fetch(dwell.url + '/admin/apps', {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after-loss', delivery: { method: 'sync' } }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const other = (await res.json()) as TestApp;
    const fence = await signed(dwell.url, other, `/v2/apps/${other.app_key}/geofences/create`, { tag: 't', push_text: null, ttl: 0, location: { lat: 43.7, long: 7.4, radius: 50 } });
    assert.equal(fence.status, 200, JSON.stringify(fence.body));
  } finally {
    await dwell.stop();
    await nats.stop();
  }
});
