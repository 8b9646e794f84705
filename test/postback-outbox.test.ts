/**
 * The outbox API both senders use: claimDue leases in memory (per-app limits, a total,
 * apps in the order asked), settle writes many results at once, and an outbox written with the
 * older global schedule still delivers everything.
 */
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { Outbox } from '../src/delivery/outbox.js';
import type { Trigger } from '../src/schemas/visit.js';

const T0 = Date.UTC(2024, 4, 6, 12);
let dir: string;
let outbox: Outbox;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dwell-outbox-'));
  outbox = new Outbox(dir);
});
afterEach(async () => {
  await outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const trigger = (appKey: string, id: string): Trigger => ({
  data: { id, request_id: 'r', event_id: 'e', user_info: { user_id: null, device_id: null, app_key: appKey, custom_data: null } },
  result: 'SUCCESS',
});
const many = (app: string, n: number) => Array.from({ length: n }, (_, i) => trigger(app, `${app}-${i}`));

test('claimDue: per-app limits and a total, in the order asked; what a claim holds is not claimed again until settled', async () => {
  await outbox.enqueue('a', many('a', 5), T0);
  await outbox.enqueue('b', many('b', 5), T0);
  await outbox.enqueue('c', many('c', 5), T0 + 10_000); // not due yet
  const got = outbox.claimDue([['b', 2], ['a', 10], ['c', 10]], T0 + 1, 6);
  assert.deepEqual(got.map((e) => e.app_key), ['b', 'b', 'a', 'a', 'a', 'a']);
  for (const e of got) {
    assert.equal(e.attempts, 1);
    assert.equal(e.first_attempt_at, T0 + 1);
    assert.equal(e.next_at, T0, 'a claim writes nothing: the schedule is as it was');
    assert.equal(JSON.parse(e.body.toString()).data.id, e.id);
  }
  const rest = outbox.claimDue([['a', 10], ['b', 10]], T0 + 2);
  assert.equal(rest.length, 4, 'only the entries not leased');
  assert.equal(outbox.claimDue([['a', 10], ['b', 10]], T0 + 3).length, 0);
  assert.equal(outbox.claimDue([['a', 10], ['b', 10]], T0 + 86_400_000).length, 0, 'a lease in memory does not run out');
  assert.equal(outbox.leased(), 10);
  await outbox.settle({ retries: got.map((e) => ({ app_key: e.app_key, id: e.id, at: T0 + 5, error: 'HTTP 500' })) });
  assert.equal(outbox.leased(), 4);
  const again = outbox.claimDue([['a', 10], ['b', 10]], T0 + 5);
  assert.equal(again.length, 6, 'settled: due again at the retry time');
  assert.ok(again.every((e) => e.attempts === 2 && e.first_attempt_at === T0 + 1), 'the first attempt was written with the retry');
  assert.equal(outbox.pendingCount(), 15);
});

test('a crash forgets every lease: another Outbox on the same data claims the held entries at once', async () => {
  await outbox.enqueue('a', many('a', 3), T0);
  assert.equal(outbox.claimDue([['a', 10]], T0).length, 3);
  const next = new Outbox(dir); // the process after a kill -9: same data, no memory of the claims
  try {
    const got = next.claimDue([['a', 10]], T0 + 1);
    assert.deepEqual(got.map((e) => [e.id, e.attempts]), [['a-0', 1], ['a-1', 1], ['a-2', 1]]);
  } finally {
    await next.close();
  }
});

test('many held entries of one app: later claims still find what is due behind and among them', async () => {
  // The bucket exporter holds thousands of an app's entries; claims skip past them by a mark,
  // which must not hide entries scheduled before it (a retry, a late commit) for long.
  await outbox.enqueue('a', many('a', 3000), T0);
  assert.equal(outbox.claimDue([['a', 5000]], T0 + 10).length, 3000);
  await outbox.enqueue('a', [trigger('a', 'late')], T0 - 100); // stamped before the claim, committed after it
  assert.deepEqual(outbox.claimDue([['a', 10]], T0 + 11).map((e) => e.id), ['late']);
  await outbox.enqueue('a', [trigger('a', 'very-late')], T0 - 60_000); // a clock step: found by the next full scan
  assert.deepEqual(outbox.claimDue([['a', 10]], T0 + 11 + 2_000).map((e) => e.id), ['very-late']);
  await outbox.settle({ retries: [{ app_key: 'a', id: 'a-7', at: T0 - 1_000, error: 'x' }] }); // this process's own write, behind the mark
  assert.deepEqual(outbox.claimDue([['a', 10]], T0 + 2_012).map((e) => e.id), ['a-7']);
});

test('settle: acks, retries and kills in one call; a retry is due at its own time', async () => {
  await outbox.enqueue('a', many('a', 4), T0);
  const [e0, e1, e2] = await outbox.claimDue([['a', 3]], T0);
  await outbox.settle({ acks: [e0], retries: [{ app_key: 'a', id: e1.id, at: T0 + 5_000, error: 'HTTP 500' }], kills: [{ app_key: 'a', id: e2.id, error: 'refused' }] });
  assert.equal(outbox.depth(), 3);
  assert.equal(outbox.pendingCount(), 2);
  assert.equal(outbox.list('a', 'dead')[0].last_error, 'refused');
  assert.deepEqual((await outbox.claimDue([['a', 10]], T0 + 4_999)).map((e) => e.id), ['a-3']);
  const [retried] = await outbox.claimDue([['a', 10]], T0 + 5_000);
  assert.equal(retried.id, e1.id);
  assert.equal(retried.attempts, 2);
  assert.equal(retried.last_error, 'HTTP 500');
  assert.equal(await outbox.replayDead('a', T0 + 6_000), 1);
  assert.deepEqual((await outbox.claimDue([['a', 10]], T0 + 6_000)).map((e) => [e.id, e.attempts, e.replayed_at]), [[e2.id, 1, T0 + 6_000]]);
});

test('an outbox with the older global schedule: every pending entry is still claimed, once', async () => {
  await outbox.enqueue('a', many('a', 3), T0);
  await outbox.close();
  // Rebuild the layout of earlier versions: the schedule in `due` only.
  const root = open({ path: path.join(dir, 'outbox.mdb'), compression: false });
  const byApp = root.openDB<number, [string, number, string]>({ name: 'due-by-app' });
  const due = root.openDB<number, [number, string, string]>({ name: 'due' });
  await root.transaction(() => {
    for (const { key, value } of byApp.getRange()) {
      due.put([key[1], key[0], key[2]], value);
      byApp.remove(key);
    }
  });
  await root.close();
  outbox = new Outbox(dir);
  assert.equal(outbox.pendingCount(), 3);
  assert.deepEqual(outbox.claimDue([['a', 10]], T0).map((e) => e.id).sort(), ['a-0', 'a-1', 'a-2']);
});
