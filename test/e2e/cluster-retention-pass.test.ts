/**
 * The cluster's user retention (privacy/retention-lease.ts) reads every user one at a time, so a
 * pass can outlast the moment the next is asked for (its interval, or the test clock moving): the
 * next starts only once it has ended, never beside it. Shown on a real node whose NATS server is
 * paused (SIGSTOP), so that the first pass waits on the cluster while the clock is moved twice
 * more; the node's debug log says when each pass starts and ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startNode } from '../helpers/node.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { advance, TEST_CLOCK } from '../helpers/clock.js';
import { until } from '../helpers/until.js';

const STARTS = 'a pass over the users starts';
const ENDS = 'the pass over the users ended';

test('a retention pass still waiting on the cluster is not joined by another; one more runs after it', async () => {
  const nats = await startNatsCluster(1);
  const dwell = await startNode({ DWELL_STATE: nats.urls, ...TEST_CLOCK, DWELL_USER_RETENTION_DAYS: '1', DWELL_LOG_LEVEL: 'debug' }, { ready: false });
  const pid = nats.nodes[0].pid!;
  const passes = () => dwell.logs.filter((l) => l.includes(STARTS) || l.includes(ENDS)).map((l) => (l.includes(STARTS) ? 'start' : 'end'));
  try {
    // Ready needs a published venue store; the node's privacy runs from its start (listening).
    await until('the node listening', async () => dwell.logs.some((l) => l.includes('"msg":"listening"')));
    process.kill(pid, 'SIGSTOP');
    try {
      await advance(dwell, 2 * 86_400);
      await until('the first pass started, waiting on the paused cluster', async () => passes().includes('start'));
      await advance(dwell, 3600);
      await advance(dwell, 3600);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until('the passes asked for ended', async () => { const p = passes(); return p.length >= 4 && p.filter((x) => x === 'start').length === p.filter((x) => x === 'end').length; });
    const seen = passes();
    let running = 0;
    for (const p of seen) {
      running += p === 'start' ? 1 : -1;
      assert.ok(running <= 1, `two passes at once: ${seen.join(', ')}`);
    }
    assert.deepEqual(seen.slice(0, 4), ['start', 'end', 'start', 'end'], 'the moves asked meanwhile make one more pass, after the first');
  } finally {
    await dwell.stop();
    await nats.stop();
  }
});
