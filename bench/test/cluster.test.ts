import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_FLEET, fleetFor, projectionTable } from '../lib/cluster-projection.js';
import { bucketKind, natsMeter, storedPerRequest, sumTraffic, trafficBetween, type NatsReading } from '../lib/nats-monitor.js';
import { startNatsCluster } from '../../src/devkit/nats-server.js';

const costs = { measuredReplicas: 1, nodeCpuMs: 2, nodeMainMs: 0.5, natsCpuMs: 0.5, natsInBytes: 2048, natsOutBytes: 10_240, natsDiskBytes: 4096 };

test('bench:cluster projection: nodes from CPU per request or the event loop, whichever binds; NATS servers from CPU, network and disk, at least three', () => {
  // 8 cores × 0.7 ÷ 2 ms = 2,800 req/s a node; the event loop allows 0.7 ÷ 0.5 ms = 1,400: the loop binds.
  const f = fleetFor(10_000, costs);
  assert.equal(f.perNode, 1400);
  assert.equal(f.nodes, 8);
  // 10,000 × 0.5 ms × 3 replicas = 15 cores ÷ (8 × 0.5) → 4 servers by CPU.
  assert.equal(f.natsByCpu, 4);
  assert.equal(f.natsByNet, 1);
  // 10,000 × 4 KiB × 3 = 117 MiB/s of disk ÷ 125 MiB/s → 1.
  assert.equal(f.natsByDisk, 1);
  assert.equal(f.nats, 4);
  assert.equal(fleetFor(10, costs).nats, DEFAULT_FLEET.natsMin);
  // Measured on three servers at R3: taken as it is, not tripled again.
  assert.equal(fleetFor(10_000, { ...costs, measuredReplicas: 3, natsCpuMs: 1.5 }).natsByCpu, 4);
  const md = projectionTable([10_000], [['mix', costs]]);
  assert.match(md, /\| mix\s+\|\s+10,000 \|\s+1,400 \|\s+8 \|\s+4 \|\s+1 \|\s+1 \|\s+\*\*4\*\* \|/);
});

test('bench:cluster NATS readings: differences over a phase, stored writes per request by kind of bucket', () => {
  const at = (n: number, streams: Array<[string, number]>): NatsReading => ({ inMsgs: n, inBytes: n * 10, outMsgs: n * 2, outBytes: n * 20, apiCalls: 1, streams: new Map(streams), diskBytes: n * 100 });
  const t = trafficBetween(at(10, [['KV_dwell-users-0', 5], ['KV_dwell-replay', 7]]), at(30, [['KV_dwell-users-0', 8], ['KV_dwell-users-3', 2], ['KV_dwell-replay', 12], ['KV_dwell-apps', 1]]));
  assert.deepEqual({ in: t.inMsgs, bytes: t.inBytes, out: t.outMsgs, disk: t.diskBytes }, { in: 20, bytes: 200, out: 40, disk: 2000 });
  assert.equal(bucketKind('KV_dwell-users-3'), 'dwell-users-*');
  assert.deepEqual(storedPerRequest(t, 5), [['dwell-users-*', 1], ['dwell-replay', 1], ['dwell-apps', 0.2]]);
  // Three replicas of the same streams: traffic adds up, a write stored on each is one write.
  const three = sumTraffic([t, t, t]);
  assert.equal(three.inMsgs, 60);
  assert.deepEqual(three.stored, t.stored);
});

test('bench:cluster NATS readings: a real nats-server with monitoring counts a KV write', async (t) => {
  const nats = await startNatsCluster(1, { monitor: true });
  t.after(() => nats.stop());
  const { connect } = await import('@nats-io/transport-node');
  const { Kvm } = await import('@nats-io/kv');
  const nc = await connect({ servers: nats.urls });
  t.after(() => nc.close());
  const kv = await new Kvm(nc).create('bench-probe', { history: 1 });
  const meter = await natsMeter([{ monitorUrl: nats.nodes[0].monitorUrl!, pid: nats.nodes[0].pid }]);
  await kv.put('a', 'hello');
  await kv.put('a', 'again');
  const traffic = await meter.end();
  assert.equal(traffic.stored.get('KV_bench-probe'), 2);
  assert.ok(traffic.inMsgs >= 2, `expected at least the 2 puts in, got ${traffic.inMsgs}`);
  assert.ok(traffic.inBytes >= 10, `expected at least the 10 value bytes in, got ${traffic.inBytes}`);
});
