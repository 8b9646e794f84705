/**
 * A node whose cluster state cannot open all of its parts refuses to start and ends
 * (server/state-cluster.ts, node-state.ts): what it opened before the failing part (the apps,
 * the trigger queue's own connection, recent detections, the kit's connection) is closed again,
 * so the process leaves with its error instead of hanging on an open connection.
 *
 * The failing part is real: another stream of the cluster already takes the subjects of the
 * place-trigger bucket, the last one a node opens, as an operator's stray stream would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { serveRefusal, tempDir } from '../helpers/server.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { PLACE_TRIGGERS_BUCKET } from '../../src/place-triggers/nats-store.js';

test('a part of the cluster state that cannot open ends the node with its error; nothing opened before it holds the process', async () => {
  const nats = await startNatsCluster(1);
  try {
    const nc = await connect({ servers: nats.urls });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'STRAY', subjects: [`$KV.${PLACE_TRIGGERS_BUCKET}.>`] });
    } finally {
      await nc.close();
    }
    // A node that hangs is killed after timeoutMs: its code is then null, and this fails.
    const { code, output, listened } = await serveRefusal({
      args: ['--state', nats.urls],
      env: { ...process.env, PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: tempDir(), DWELL_ADMIN_TOKEN: 'x', DWELL_WORKERS: '1', DWELL_WARM_UP: 'off' },
      timeoutMs: 60_000,
    });
    assert.equal(listened, false, output);
    assert.equal(code, 1, `the node left on its own with code 1, not killed while it hung:\n${output.slice(-2000)}`);
    assert.match(output, /overlap/i, 'the error names the cause');
  } finally {
    await nats.stop();
  }
});
