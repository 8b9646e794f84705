/**
 * What a lost NATS server means for a cluster-state call: 503 `unavailable` (try again soon),
 * never a raw JetStream error that the server would answer as a 500. Real servers: a three-server
 * cluster that loses two (no quorum, so every stream is leaderless), and the errors JetStream
 * answers with while a stream elects a leader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JetStreamApiError } from '@nats-io/jetstream';
import { openNatsState } from '../../src/state/nats/kit.js';
import { isTransient, unavailable } from '../../src/state/nats/connect.js';
import { DwellError } from '../../src/errors.js';
import { emptyRecord } from '../../src/users/records.js';
import { startNatsCluster } from '../helpers/nats-server.js';

const code = (err: unknown) => (err instanceof DwellError ? err.code : `raw ${(err as Error)?.name}: ${(err as Error)?.message}`);

test('a cluster that lost its quorum: user reads and writes fail as unavailable', async () => {
  const nats = await startNatsCluster(3);
  const kit = await openNatsState(nats.nodes.map((n) => n.url));
  try {
    await kit.users.modify('app', 'u1', (rec) => ({ record: { ...rec, d: 1 }, result: null }));
    await nats.nodes[1].stop('SIGKILL');
    await nats.nodes[2].stop('SIGKILL');
    for (const call of [
      () => kit.users.modify('app', 'u1', (rec) => ({ record: { ...(rec ?? emptyRecord()), d: 2 }, result: null })),
      () => kit.users.modify('app', 'u2', (rec) => ({ record: { ...rec, d: 2 }, result: null })),
      () => kit.replay.claim('app.sig', Math.floor(Date.now() / 1000) + 300),
    ]) {
      const err = await call().then(() => null, (e: unknown) => e);
      // A read may still be answered by the server left; a write needs a leader.
      assert.ok(err !== null, 'a write without quorum must fail');
      assert.equal(code(err), 'unavailable');
    }
  } finally {
    await kit.close();
    await nats.stop();
  }
});

test('JetStream\'s "no leader" answers are unavailable; a request\'s own faults are not', () => {
  const api = (status: number, errCode: number, description: string) => new JetStreamApiError({ code: status, err_code: errCode, description });
  for (const err of [
    api(503, 10008, 'JetStream system temporarily unavailable'),
    api(500, 10009, 'JetStream cluster can not handle request'),
    api(500, 10118, 'stream is offline'),
    api(503, 10076, 'JetStream not enabled'),
    new Error('wrapper', { cause: api(503, 10008, 'JetStream system temporarily unavailable') }),
  ]) {
    assert.equal(isTransient(err), true, err.message);
    assert.equal(code(unavailable(err)), 'unavailable');
  }
  for (const err of [api(400, 10071, 'wrong last sequence: 3'), api(404, 10059, 'stream not found'), new TypeError('x is not a function')]) {
    assert.equal(isTransient(err), false, err.message);
    assert.equal(unavailable(err), err, 'left as it was');
  }
});
