/**
 * Cluster mode, delivery (contract §3, §8): two `dwell serve` nodes share one JetStream trigger
 * queue (a real nats-server started here). A node killed with kill -9 in the middle of a
 * postback burst loses nothing accepted: what it held unacknowledged is delivered by the other
 * node. A cluster that cannot be reached makes a detect answer 503 `unavailable` with a
 * Retry-After, not a 500 and not a hang.
 *
 * The app is created on one node: apps live in the cluster's state (the dwell-apps bucket), so the
 * other node serves it too.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startDwell, waitReady, type Running } from '../helpers/server.js';
import { publishStore } from '../../src/venues/import/publish.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';

/** Holds every postback open until `open`; from then answers 200, held ones included. Counts by X-Trigger-Id. */
async function receiver() {
  const held: http.ServerResponse[] = [];
  const seen = new Map<string, number>();
  const acked = new Set<string>();
  const state = { open: false };
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      const id = String(req.headers['x-trigger-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const ok = () => { if (!res.destroyed) { res.writeHead(200).end(); acked.add(id); } };
      if (state.open) ok();
      else held.push(Object.assign(res, { ok }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen, acked,
    open() { state.open = true; for (const r of held.splice(0)) (r as unknown as { ok(): void }).ok(); },
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

let nats: NatsCluster;
let app: TestApp;
let sink: Awaited<ReturnType<typeof receiver>>;
const nodes: Running[] = [];

/** Two nodes on the same queue and the same app. */
before(async () => {
  nats = await startNatsCluster(1);
  // Cluster nodes serve the venue store published to the cluster: the bundled sample.
  const venues = join(ROOT, 'data', 'monaco');
  await publishStore(nats.urls.split(','), venues, readFileSync(join(venues, 'CURRENT'), 'utf8').trim(), true);
  sink = await receiver();
  const env = { DWELL_STATE: nats.urls, DWELL_POSTBACK_CONCURRENCY: '64' };
  // A loaded machine can take longer than the helper's 20 s to start a delivery worker.
  const start = async (extra: Record<string, string> = {}) => {
    const n = await startDwell({ ...env, ...extra }, { ready: false });
    await waitReady(n.url, 120_000);
    return n;
  };
  nodes.push(...await Promise.all([start(), start()]));
  app = await createApp(nodes[0].url, { method: 'postback', url: sink.url });
});
after(async () => {
  for (const n of nodes) if (n.proc.exitCode === null && n.proc.signalCode === null) await n.stop('SIGKILL');
  sink.close();
  await nats.stop();
});

test('kill -9 of a node holding postbacks open: the other node delivers every accepted trigger, ids dedupable', async () => {
  const [a, b] = nodes;
  const requests = 20;
  for (let i = 0; i < requests; i++) {
    const r = await signed((i % 2 ? b : a).url, app, '/v1/detect', { ...visitRequest(), request_id: `cluster-${i}` });
    assert.equal(r.status, 202, JSON.stringify(r.body));
  }
  const triggers = requests * 2; // visitRequest() makes two visits
  await until(`all ${triggers} triggers in flight at the receiver`, () => sink.seen.size === triggers);
  const before = new Set(sink.seen.keys());

  await a.stop('SIGKILL'); // whatever it held open is unacknowledged: back to the queue after the ack wait
  sink.open();
  await until('every trigger acknowledged by the node still alive', () => sink.acked.size === triggers, 120_000);
  assert.deepEqual([...sink.acked].sort(), [...before].sort(), 'the same X-Trigger-Ids: receivers can deduplicate');
  const again = [...sink.seen.values()].filter((n) => n > 1).length;
  assert.ok(again > 0, 'the killed node held some triggers, sent again by the other');

  // The receiver's 200 comes before the node's ack reaches JetStream: the queue empties right after.
  const pending = async () => ((await (await fetch(`${b.url}/admin/apps/${app.app_key}/deliveries`, { headers: { authorization: 'Bearer test-admin-token' } })).json()) as { count: number }).count;
  await until('nothing left pending in the shared queue', async () => (await pending()) === 0, 30_000, 200);
});

test('the cluster unreachable: a detect that must be queued answers 503 unavailable with Retry-After, promptly', async () => {
  const b = nodes[1];
  await nats.nodes[0].stop('SIGKILL');
  try {
    const r = await signed(b.url, app, '/v1/detect', { ...visitRequest(), request_id: 'cluster-down' });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.error?.code ?? r.body.code, 'unavailable');
    assert.ok(Number(r.headers.get('retry-after')) > 0, 'a Retry-After');
  } finally {
    await nats.nodes[0].start();
  }
  // Back by itself: the node reconnects and queues again.
  await until('the node accepts again once NATS is back', async () => (await signed(b.url, app, '/v1/detect', { ...visitRequest(), request_id: `cluster-back-${Date.now()}` })).status === 202, 60_000, 500);
});
