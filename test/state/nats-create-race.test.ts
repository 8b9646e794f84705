/**
 * Nodes started together each create the streams they need (state/nats/create.ts): nats-server
 * 2.9 answers the second of two concurrent creates of one stream "subjects overlap", which kept a
 * node of a pair from starting (cluster suite, once in CI). Here six connections create the same
 * new buckets and streams at once, round after round: every create must succeed and all of them
 * must name one stream. Nothing is timed; a round without the race passes either way, so there are
 * many rounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectNats, type NatsState } from '../../src/state/nats/connect.js';
import { bucket } from '../../src/state/nats/kv.js';
import { ensureOutboxStreams } from '../../src/state/nats/outbox-streams.js';
import { startNatsCluster } from '../helpers/nats-server.js';

const NODES = 6;
const ROUNDS = 400;

test('six nodes creating the same buckets and streams at once all succeed', { timeout: 120_000 }, async () => {
  const nats = await startNatsCluster(1);
  const nodes: NatsState[] = [];
  try {
    for (let i = 0; i < NODES; i++) nodes.push(await connectNats([nats.urls], { name: `race-${i}` }));
    await Promise.all(nodes.map((ns) => ensureOutboxStreams(ns.jsm, { replicas: 1, ackWaitMs: 30_000 })));
    for (let round = 0; round < ROUNDS; round++) {
      const name = `dwell-race-${round}`;
      const kvs = await Promise.all(nodes.map((ns) => bucket(ns, name)));
      await kvs[0].put('k', new TextEncoder().encode(String(round)));
      for (const kv of kvs) assert.equal(new TextDecoder().decode((await kv.get('k'))!.value), String(round), `round ${round}: one bucket for all`);
    }
    const names: string[] = [];
    for await (const s of nodes[0].jsm.streams.names()) names.push(s);
    assert.equal(names.filter((n) => n.startsWith('KV_dwell-race-')).length, ROUNDS);
    assert.ok(names.includes('DWELL_OUTBOX') && names.includes('DWELL_DEAD'), `outbox streams created: ${names.join(', ')}`);
  } finally {
    await Promise.all(nodes.map((ns) => ns.close().catch(() => undefined)));
    await nats.stop();
  }
});
