/**
 * The retention sweep on its own thread (privacy/sweep-thread.ts, workers/sweep.ts): real LMDB
 * stores as the server opens them, the thread opening the same environments, its clock moved
 * forward instead of waiting a year. What is checked is what it removed and reported, and that
 * stopping it leaves this thread's environments open; never how long anything took.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../../src/http/metrics.js';
import type { PrivacyStores } from '../../src/privacy/stores.js';
import { addUsers, usersLeft, withPrivacyStores } from '../helpers/privacy-stores.js';
import { startSweepThread } from '../../src/privacy/sweep-thread.js';
import { DAY_MS, slotFor } from '../../src/users/touch.js';
import { until } from '../helpers/until.js';
import { MovableClock } from '../../src/time/clock.js';

const YEAR = 365 * DAY_MS;


const left = usersLeft;
const withUsers = (n: number, run: (s: PrivacyStores, dataDir: string) => Promise<void>) => withPrivacyStores(async (f) => { addUsers(f, n); await run(f.s, f.dataDir); });
/** The thread reads a movable clock (time/clock.ts) 400 days ahead, through its shared buffer. */
const aged = () => {
  const c = new MovableClock();
  c.advance(400 * DAY_MS);
  return c.buffer;
};
const init = (dataDir: string) => ({
  dataDir, userRetentionMs: YEAR, deadRetentionMs: 0, intervalMs: 50, slotMs: slotFor(YEAR), clock: aged(),
});

test('the sweep thread removes expired users with their presence and reports them to this thread\'s metrics', async () => {
  await withUsers(50, async (s, dataDir) => {
    s.users.putSync(['u', 'app', 'u0'], { ...s.users.get(['u', 'app', 'u0']), p: { fences: { inside: ['gf_1'], last: 1 } } });
    const metrics = new Metrics();
    const thread = startSweepThread(init(dataDir), metrics);
    try {
      await until('every user swept', () => thread.removed.users === 50);
    } finally {
      await thread.stop();
    }
    assert.equal(left(s), 0);
    assert.deepEqual({ ...thread.removed }, { users: 50, geofence_presence: 1, dead_triggers: 0 });
    assert.match(await metrics.render(), /dwell_retention_removed_total\{kind="users"\} 50/);
    // The thread closed its handles, not the environment this thread still uses.
    await s.users.put(['meta', 'probe'], 1);
    assert.equal(s.users.get(['meta', 'probe']), 1);
  });
});

test('stopped while a request is in flight, it stops; a new thread carries on where it stopped', async () => {
  await withUsers(2000, async (s, dataDir) => {
    const first = startSweepThread(init(dataDir));
    // A request in flight throughout: only the guaranteed minimum goes.
    first.enter();
    await until('a first tick\'s minimum removed', () => first.removed.users > 0);
    await first.stop();
    first.leave();
    const second = startSweepThread(init(dataDir));
    try {
      await until('the rest swept', () => first.removed.users + second.removed.users === 2000);
    } finally {
      await second.stop();
    }
    assert.equal(left(s), 0);
  });
});
