/**
 * Retention (contract §7) with an injected clock: the sweep module on real LMDB stores in a
 * temporary data directory, as the server opens them, so no test waits days. And one run of the
 * real server with a retention of a day and its clock moved (helpers/clock.ts), to show the
 * settings reach the sweep and that its thread and the detection workers read the same time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Outbox } from '../../src/delivery/outbox.js';
import type { PrivacyStores } from '../../src/privacy/stores.js';
import { withPrivacyStores } from '../helpers/privacy-stores.js';
import { RetentionSweeper } from '../../src/privacy/retention.js';
import { eraseUsers } from '../../src/privacy/erase.js';
import { DAY_MS } from '../../src/users/touch.js';
import { startDwell, tempDir } from '../helpers/server.js';
import { counterSum } from '../helpers/scrape.js';
import { createApp, signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { until } from '../helpers/until.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';

const trigger = (id: string, device: string) => ({ type: 'visit', data: { id, user_info: { user_id: null, device_id: device, custom_data: null } } }) as never;

type Write = (app: string, user: string) => void;

/** The stores as the server opens them, and a detection worker's user store to write records through. */
const withStores = (run: (s: PrivacyStores, write: Write) => Promise<void>) => withPrivacyStores(({ s, users }) => run(s, (app, user) => users.update(app, user, (rec) => {
  rec.h.venue = { f: 1, l: 1, p: -1, n: 1, i: 'v' };
  return { record: rec, result: undefined };
})));

test('users untouched for the retention are deleted with their presence; newer ones stay', async () => {
  await withStores(async (s, write) => {
    write('app', 'old');
    write('app', 'other');
    // Presence is part of the record (users/presence.ts): it goes with it.
    s.users.putSync(['u', 'app', 'old'], { ...s.users.get(['u', 'app', 'old']), p: { fences: { inside: ['gf_1'], last: 1 } } });
    let now = Date.now() + 364 * DAY_MS;
    const sweeper = new RetentionSweeper(s, { userRetentionMs: 365 * DAY_MS, deadRetentionMs: 30 * DAY_MS, now: () => now });
    assert.deepEqual(await sweeper.sweepOnce(), { users: 0, geofence_presence: 0, dead_triggers: 0 }, 'not yet a year');
    assert.ok(s.users.get(['u', 'app', 'old']));

    now = Date.now() + 367 * DAY_MS;
    assert.deepEqual(await sweeper.sweepOnce(), { users: 2, geofence_presence: 1, dead_triggers: 0 });
    assert.equal(s.users.get(['u', 'app', 'old']), undefined);
    assert.deepEqual([...s.users.getKeys({ start: ['ut'], end: ['ut\u0000'] })], [], 'no index key left behind');
  });
});

test('the sweep goes a bounded batch at a time, and carries on after a restart', async () => {
  await withStores(async (s, write) => {
    for (let i = 0; i < 7; i++) write('app', `u${i}`);
    const later = () => Date.now() + 400 * DAY_MS;
    const first = new RetentionSweeper(s, { userRetentionMs: 365 * DAY_MS, deadRetentionMs: 0, now: later, batch: 3, budgetMs: 0 });
    assert.equal((await first.sweepOnce()).users, 3, 'one batch per tick when the budget is spent');
    // A new sweeper (a restarted server) finds the rest from the stored index alone. Its budget is
    // ample: the point is what it finds, and a loaded machine can spend 20 ms on one batch.
    const second = new RetentionSweeper(s, { userRetentionMs: 365 * DAY_MS, deadRetentionMs: 0, now: later, batch: 3, budgetMs: 60_000 });
    assert.equal((await second.sweepOnce()).users, 4);
  });
});

test('records written before the touch index get one as of the sweep, and go a retention later', async () => {
  await withStores(async (s) => {
    s.users.putSync(['u', 'app', 'legacy'], { h: {}, r: [] });
    let now = Date.now();
    const sweeper = new RetentionSweeper(s, { userRetentionMs: 365 * DAY_MS, deadRetentionMs: 0, now: () => now });
    assert.equal((await sweeper.sweepOnce()).users, 0);
    now += 366 * DAY_MS;
    assert.equal((await sweeper.sweepOnce()).users, 1);
  });
});

test('dead triggers go the retention after they died; pending ones and erased ones are handled', async () => {
  await withStores(async (s) => {
    const outbox = s.outbox as Outbox; // the embedded queue: its user index is checked below
    await outbox.enqueue('app', [trigger('t1', 'ad-1'), trigger('t2', 'ad-2'), trigger('t3', 'ad-3')]);
    const claimed = outbox.claimDue([['app', 10]], Date.now() + 1);
    assert.equal(claimed.length, 3);
    await outbox.settle({ kills: [{ app_key: 'app', id: 't1', error: 'gone' }, { app_key: 'app', id: 't3', error: 'gone' }], retries: [{ app_key: 'app', id: 't2', at: Date.now(), error: 'x' }] });
    assert.deepEqual(await eraseUsers(s, 'app', ['ad-3']).then((e) => [e.pending_triggers, e.dead_triggers]), [0, 1], 'an erase takes dead triggers too');

    let now = Date.now() + 29 * DAY_MS;
    const sweeper = new RetentionSweeper(s, { userRetentionMs: 0, deadRetentionMs: 30 * DAY_MS, now: () => now });
    assert.equal((await sweeper.sweepOnce()).dead_triggers, 0);
    now = Date.now() + 31 * DAY_MS;
    assert.equal((await sweeper.sweepOnce()).dead_triggers, 1);
    assert.deepEqual(outbox.list('app', 'dead'), []);
    assert.deepEqual(outbox.list('app', 'pending').map((e) => e.id), ['t2'], 'a pending trigger is not the sweep\'s');
    assert.deepEqual(outbox.index.idsOf('app', 'ad-1'), [], 'its user index went with it');
  });
});

test('the server deletes users after DWELL_USER_RETENTION_DAYS on its clock, and counts them in /metrics', async () => {
  const dwell = await startDwell({ ...TEST_CLOCK, DWELL_USER_RETENTION_DAYS: '1' });
  try {
    const app = await createApp(dwell.url);
    // A visit writes the user's record (a detection worker stamps it with the server's clock).
    const visit = async (user: string) => {
      const r = await signed(dwell.url, app, '/v1/detect', {
        advertising_id: user,
        events: [{ event_id: 'e', type: 'visit', start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00', data: fixes(CASINO, '2024-05-06T07', [27, 31, 35, 40, 45]) }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    const stored = async (user: string) => (await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=${user}`)).body.users[0].record !== null;
    await visit('before');
    assert.ok(await stored('before'), 'stored at first');
    await advance(dwell, 2 * 86_400);
    await visit('after');
    // The sweep's thread reads the moved clock and is woken by the move: the first user goes now.
    await until('the user last seen two days ago swept', async () => !(await stored('before')));
    assert.ok(await stored('after'), 'the user seen after the move is a day from its end, on the same clock');
    await advance(dwell, 86_400 + 3 * 3600); // a day and its touch slot (1.5 h) later
    await until('the second user swept', async () => !(await stored('after')));
    // The sweep thread reports a batch's counts after its transaction commits: the count follows
    // the deletion. Each node counts what it swept (a cluster's sweeps are shared): summed over them.
    const removed = () => counterSum(dwell, 'dwell_retention_removed_total', { kind: 'users' });
    await until('both users counted in /metrics', async () => (await removed()) === 2);
    assert.equal(await removed(), 2);
  } finally {
    await dwell.stop();
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});

test('retention settings refuse what is not a number of days', async () => {
  const dataDir = tempDir();
  try {
    await assert.rejects(startDwell({ DWELL_DATA_DIR: dataDir, DWELL_USER_RETENTION_DAYS: 'a year' }), /DWELL_USER_RETENTION_DAYS.*expected a number of days/s);
    await assert.rejects(startDwell({ DWELL_DATA_DIR: dataDir, DWELL_DEAD_RETENTION_DAYS: '-1' }), /DWELL_DEAD_RETENTION_DAYS.*expected a number of days/s);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
