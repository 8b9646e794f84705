/**
 * A follower of a cluster bucket (state/nats/kv.ts `follow`) that cannot begin its watch, the
 * cluster being unreachable, says so: its `ready` rejects `unavailable` after its bound instead of
 * leaving whoever awaits it (a detection thread opening its copies) waiting for ever. The bound is
 * passed small here; nothing is timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openNatsState } from '../../src/state/nats/kit.js';
import { bucket, follow } from '../../src/state/nats/kv.js';
import { startNatsCluster } from '../helpers/nats-server.js';

test('a follower whose cluster is unreachable rejects its ready (unavailable) after its bound', { timeout: 120_000 }, async () => {
  const nats = await startNatsCluster(1);
  const kit = await openNatsState([nats.urls]);
  try {
    const kv = await bucket(kit.ns, 'dwell-ready-probe');
    await nats.nodes[0].stop();
    const seen: string[] = [];
    const f = follow(kv, (e) => seen.push(e.key), 500);
    await assert.rejects(f.ready, (err: { code?: string }) => err.code === 'unavailable');
    f.stop();
    assert.deepEqual(seen, []);
  } finally {
    await kit.close().catch(() => undefined);
    await nats.stop();
  }
});
