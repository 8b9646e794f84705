/**
 * The dispatcher on a real outbox (LMDB in a temp dir) with an injected clock, app lookup and
 * send function: retries, the 24 h dead letter, per-app isolation and leases, without sleeping.
 */
import { test, beforeEach, afterEach } from 'node:test';
import { until } from './helpers/until.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Outbox } from '../src/delivery/outbox.js';
import { PostbackDispatcher, type DispatcherOptions } from '../src/delivery/postback/dispatcher.js';
import type { SendResult } from '../src/delivery/postback/sender.js';
import type { AppRecord } from '../src/schemas/app.js';
import type { Trigger } from '../src/schemas/visit.js';

const H = 3600_000;
const T0 = Date.UTC(2024, 4, 6, 12);
let dir: string;
let outbox: Outbox;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dwell-dispatch-'));
  outbox = new Outbox(dir);
  now = T0;
});
afterEach(async () => {
  await outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const app = (key: string, delivery: AppRecord['delivery'] = { method: 'postback', url: `https://${key}.example/hook` }): AppRecord => ({
  app_key: key, name: key, delivery, confirm_dwell_s: 300, secrets: [{ value: 'secret-' + key, expires_at: null }], created_at: '', updated_at: '',
});
const trigger = (appKey: string, id: string): Trigger => ({
  data: { id, request_id: 'r', event_id: 'e', user_info: { user_id: null, device_id: null, app_key: appKey, custom_data: null } },
  result: 'SUCCESS',
});

interface Call { url: string; secret: string; id: string; at: number; resolve: (r: SendResult) => void }

/** A dispatcher whose sends wait for the test to answer them. */
function rig(apps: Record<string, AppRecord>, extra: Partial<DispatcherOptions> = {}) {
  const calls: Call[] = [];
  const firsts: number[] = [];
  const d = new PostbackDispatcher({
    outbox,
    apps: (k) => apps[k],
    send: (url, secret, t, at) => new Promise((resolve) => calls.push({ url, secret, id: t.id, at, resolve })),
    clock: () => now,
    random: () => 0.5,
    onFirstAttempt: (ms) => firsts.push(ms),
    ...extra,
  });
  /** Answers every call made so far, then waits until the results are written. */
  const answer = async (r: SendResult | ((c: Call) => SendResult)) => {
    for (const c of calls.splice(0)) c.resolve(typeof r === 'function' ? r(c) : r);
    await d.idle();
  };
  return { d, calls, firsts, answer };
}

const OK: SendResult = { outcome: 'success' };
const FAIL: SendResult = { outcome: 'http_error', error: 'expected a 2xx answer, got HTTP 500' };

test('due triggers are sent with the app\'s URL and current secret, and acknowledged by a 2xx', async () => {
  const { d, calls, firsts, answer } = rig({ a: app('a') });
  await outbox.enqueue('a', [trigger('a', 't1'), trigger('a', 't2')], now - 40);
  await d.pass();
  assert.deepEqual(calls.map((c) => [c.id, c.url, c.secret]).sort(), [['t1', 'https://a.example/hook', 'secret-a'], ['t2', 'https://a.example/hook', 'secret-a']]);
  assert.deepEqual(firsts, [40, 40], '202 → first attempt');
  assert.equal(outbox.pendingCount(), 2, 'leased, not gone, while being sent');
  await d.pass();
  assert.equal(calls.length, 2, 'a leased entry is not taken again');
  await answer(OK);
  assert.equal(outbox.depth(), 0);
});

test('a failure is retried on the backoff schedule, with the same trigger, until it succeeds', async () => {
  const { d, calls, answer } = rig({ a: app('a') });
  await outbox.enqueue('a', [trigger('a', 't1')], now);
  const attempts: number[] = [];
  for (let i = 0; i < 3; i++) {
    await d.pass();
    assert.equal(calls.length, 1);
    attempts.push(calls[0].at - T0);
    await answer(FAIL);
    const [e] = outbox.list('a', 'pending');
    assert.equal(e.last_error, FAIL.error);
    now += 1; // just after the failure: nothing is due yet
    await d.pass();
    assert.equal(calls.length, 0);
    now = e.next_at;
  }
  await d.pass();
  assert.equal(calls[0].id, 't1');
  await answer(OK);
  // random 0.5: waits of 1 s, 2 s, … counted from each failure
  assert.deepEqual(attempts, [0, 1000, 3000]);
  assert.equal(outbox.depth(), 0);
});

test('after 24 hours of failures the trigger is dead, listed, and replay gives it a new window', async () => {
  const { d, calls, answer } = rig({ a: app('a') });
  await outbox.enqueue('a', [trigger('a', 't1')], now);
  let attempts = 0;
  while (outbox.list('a', 'pending').length) {
    await d.pass();
    attempts += calls.length;
    await answer(FAIL);
    const [e] = outbox.list('a', 'pending');
    if (e) now = e.next_at;
  }
  const [dead] = outbox.list('a', 'dead');
  assert.equal(now, T0 + 24 * H);
  assert.equal(dead.attempts, attempts);
  assert.match(dead.last_error!, /gave up after \d+ attempt\(s\) over 24 h; last: expected a 2xx answer, got HTTP 500/);
  now += 5 * H;
  await d.pass();
  assert.equal(calls.length, 0, 'dead is never retried on its own');

  assert.equal(await outbox.replayDead('a', now), 1);
  await d.pass();
  await answer(FAIL);
  assert.equal(outbox.list('a', 'pending').length, 1, 'a failed replay is retried, not dead at once');
  now = outbox.list('a', 'pending')[0].next_at;
  await d.pass();
  await answer(OK);
  assert.equal(outbox.depth(), 0);
});

test('a receiver that never answers holds only its own app\'s slots', async () => {
  const { d, calls, answer } = rig({ slow: app('slow'), fast: app('fast') }, { perApp: 3 });
  await outbox.enqueue('slow', Array.from({ length: 50 }, (_, i) => trigger('slow', 's' + i)), now - 1000);
  await outbox.enqueue('fast', Array.from({ length: 5 }, (_, i) => trigger('fast', 'f' + i)), now);
  await d.pass();
  assert.equal(calls.filter((c) => c.url.includes('slow')).length, 3, 'the slow app is capped');
  assert.equal(calls.filter((c) => c.url.includes('fast')).length, 3);
  const fast = calls.filter((c) => c.url.includes('fast'));
  for (const c of fast) c.resolve(OK);
  calls.splice(0, calls.length, ...calls.filter((c) => !fast.includes(c)));
  while (outbox.list('fast', 'pending').length) {
    await new Promise((r) => setImmediate(r));
    await d.pass();
    for (const c of calls.filter((c) => c.url.includes('fast'))) c.resolve(OK);
  }
  assert.equal(outbox.list('fast', 'pending').length, 0, 'all of the fast app delivered');
  assert.equal(calls.filter((c) => c.url.includes('slow')).length, 3, 'the slow app still has only its 3 in flight');
  await answer(OK);
});

test('apps that are gone or no longer on postback: dead with a clear error; bucket apps are left alone', async () => {
  const { d, calls } = rig({ s: app('s', { method: 'sync' }), b: app('b', { method: 'bucket', provider: 's3', bucket: 'x' }) });
  await outbox.enqueue('gone', [trigger('gone', 'g1')], now);
  await outbox.enqueue('s', [trigger('s', 's1')], now);
  await outbox.enqueue('b', [trigger('b', 'b1')], now);
  await d.pass();
  await d.idle();
  assert.equal(calls.length, 0);
  assert.match(outbox.list('gone', 'dead')[0].last_error!, /app gone no longer exists/);
  assert.match(outbox.list('s', 'dead')[0].last_error!, /set to sync delivery, not postback/);
  assert.equal(outbox.list('b', 'pending').length, 1);
  assert.equal(outbox.list('b', 'pending')[0].attempts, 0, 'not even claimed');
});

test('a refused target is dead at once, not retried', async () => {
  const { d, answer } = rig({ a: app('a') });
  await outbox.enqueue('a', [trigger('a', 't1')], now);
  await d.pass();
  await answer({ outcome: 'refused', error: 'the postback host 10.0.0.1 is a private address' });
  assert.match(outbox.list('a', 'dead')[0].last_error!, /private address/);
});

test('a process that dies mid-send: the next one sends its triggers again at once, however long ago they were claimed', async () => {
  const first = rig({ a: app('a') });
  await outbox.enqueue('a', [trigger('a', 't1'), trigger('a', 't2')], now);
  await first.d.pass();
  assert.equal(first.calls.length, 2); // …and the process dies: these sends are never answered
  now += 3_600_000;
  await first.d.pass();
  assert.equal(first.calls.length, 2, 'while this process lives, what it holds is not taken again');

  // The next process: a new Outbox object on the same data, without the dead one's leases.
  const restarted = new Outbox(dir);
  try {
    const second = rig({ a: app('a') }, { outbox: restarted, pollMs: 60_000 });
    second.d.start();
    // Its first pass runs at start, not after its minute.
    await until('both sent by the pass at start', () => second.calls.length >= 2, 5_000, 5);
    assert.deepEqual(second.calls.map((c) => c.id).sort(), ['t1', 't2'], 'due at once: no lease to run out');
    await second.answer(OK);
    await second.d.stop();
    assert.equal(restarted.depth(), 0);
    assert.equal(restarted.leased(), 0);
  } finally {
    await restarted.close();
  }
});
