/**
 * The outbox API both senders use: claimDue leases in one transaction (per-app limits, a total,
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

test('claimDue: per-app limits and a total, in the order asked; leased entries are not claimed again until the lease ends', async () => {
  await outbox.enqueue('a', many('a', 5), T0);
  await outbox.enqueue('b', many('b', 5), T0);
  await outbox.enqueue('c', many('c', 5), T0 + 10_000); // not due yet
  const got = await outbox.claimDue([['b', 2], ['a', 10], ['c', 10]], T0 + 1, 30_000, 6);
  assert.deepEqual(got.map((e) => e.app_key), ['b', 'b', 'a', 'a', 'a', 'a']);
  for (const e of got) {
    assert.equal(e.attempts, 1);
    assert.equal(e.first_attempt_at, T0 + 1);
    assert.equal(e.next_at, T0 + 1 + 30_000);
    assert.equal(JSON.parse(e.body).data.id, e.id);
  }
  const rest = await outbox.claimDue([['a', 10], ['b', 10]], T0 + 2, 30_000);
  assert.equal(rest.length, 4, 'only the entries not leased');
  assert.equal((await outbox.claimDue([['a', 10], ['b', 10]], T0 + 3, 30_000)).length, 0);
  const again = await outbox.claimDue([['a', 10], ['b', 10]], T0 + 1 + 30_000, 30_000);
  assert.equal(again.length, 6, 'the first leases ran out: due again');
  assert.ok(again.every((e) => e.attempts === 2 && e.first_attempt_at === T0 + 1));
  assert.equal(outbox.pendingCount(), 15);
});

test('settle: acks, retries and kills in one call; a retry is due at its own time', async () => {
  await outbox.enqueue('a', many('a', 4), T0);
  const [e0, e1, e2] = await outbox.claimDue([['a', 3]], T0, 30_000);
  await outbox.settle({ acks: [e0], retries: [{ app_key: 'a', id: e1.id, at: T0 + 5_000, error: 'HTTP 500' }], kills: [{ app_key: 'a', id: e2.id, error: 'refused' }] });
  assert.equal(outbox.depth(), 3);
  assert.equal(outbox.pendingCount(), 2);
  assert.equal(outbox.list('a', 'dead')[0].last_error, 'refused');
  assert.deepEqual((await outbox.claimDue([['a', 10]], T0 + 4_999, 30_000)).map((e) => e.id), ['a-3']);
  const [retried] = await outbox.claimDue([['a', 10]], T0 + 5_000, 30_000);
  assert.equal(retried.id, e1.id);
  assert.equal(retried.attempts, 2);
  assert.equal(retried.last_error, 'HTTP 500');
  assert.equal(await outbox.replayDead('a', T0 + 6_000), 1);
  assert.deepEqual((await outbox.claimDue([['a', 10]], T0 + 6_000, 30_000)).map((e) => [e.id, e.attempts, e.replayed_at]), [[e2.id, 1, T0 + 6_000]]);
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
  assert.deepEqual((await outbox.claimDue([['a', 10]], T0, 1000)).map((e) => e.id).sort(), ['a-0', 'a-1', 'a-2']);
});
