/**
 * The retention sweep keeps to the moments when no request is in flight (privacy/sweep-pace.ts),
 * yet a server that is never idle still clears its backlog at the guaranteed minimum rate. Real
 * LMDB stores as the server opens them, an injected clock for retention and an injected "a
 * request is in flight" for the load; what is checked is what each tick removed, never how long
 * it took.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PrivacyStores } from '../../src/privacy/stores.js';
import { addUsers, usersLeft, withPrivacyStores } from '../helpers/privacy-stores.js';
import { RetentionSweeper } from '../../src/privacy/retention.js';
import { DAY_MS } from '../../src/users/touch.js';

const YEAR = 365 * DAY_MS;


const left = usersLeft;
const withUsers = (n: number, run: (s: PrivacyStores) => Promise<void>) => withPrivacyStores(async (f) => { addUsers(f, n); await run(f.s); });

test('under unbroken detection load each tick still removes its minimum, and the backlog clears', async () => {
  await withUsers(40, async (s) => {
    // 100 users/s over a 100 ms tick: 10 users a tick, in batches of 5, while a request is always in flight.
    const sweeper = new RetentionSweeper(s, {
      userRetentionMs: YEAR, deadRetentionMs: 0, now: () => Date.now() + 400 * DAY_MS,
      busy: () => true, minPerSecond: 100, intervalMs: 100, batch: 5, budgetMs: 60_000,
    });
    const perTick: number[] = [];
    while (left(s) > 0 && perTick.length < 10) perTick.push((await sweeper.sweepOnce()).users);
    assert.deepEqual(perTick, [10, 10, 10, 10], 'the guaranteed minimum a tick, no more while never idle');
    assert.equal(sweeper.removed.users, 40);
  });
});

test('between requests the sweep takes what its budget allows, not just the minimum', async () => {
  await withUsers(40, async (s) => {
    // A request in flight at the tick's first look, none after: the load stops while the tick
    // waits for a quiet moment, and it then sweeps everything due.
    let looks = 0;
    const sweeper = new RetentionSweeper(s, {
      userRetentionMs: YEAR, deadRetentionMs: 0, now: () => Date.now() + 400 * DAY_MS,
      busy: () => ++looks === 1, minPerSecond: 10, intervalMs: 100, batch: 5, budgetMs: 60_000,
    });
    assert.equal((await sweeper.sweepOnce()).users, 40);
    assert.equal(left(s), 0);
  });
});

test('a stopped sweeper does not wait for a quiet moment', async () => {
  await withUsers(3, async (s) => {
    const sweeper = new RetentionSweeper(s, {
      userRetentionMs: YEAR, deadRetentionMs: 0, now: () => Date.now() + 400 * DAY_MS, busy: () => true, minPerSecond: 0, intervalMs: 60_000,
    });
    const tick = sweeper.sweepOnce();
    await sweeper.stop();
    assert.equal((await tick).users, 0, 'busy throughout and no minimum: nothing removed, and the tick ended with stop()');
    assert.equal(left(s), 3);
  });
});
