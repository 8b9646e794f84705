/**
 * CatchUp (state/nats/catch-up.ts), a watching copy's read-your-writes, without NATS: the stream's
 * last revision is a function the test answers, the watch's deliveries are `saw` calls.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CatchUp } from '../src/state/nats/catch-up.js';

/** A last-revision query the test answers by hand, in order. */
function queries() {
  const pending: Array<(n: number) => void> = [];
  return { ask: () => new Promise<number>((r) => pending.push(r)), answer: (n: number) => pending.shift()!(n), get count() { return pending.length; } };
}
const tick = () => new Promise((r) => setImmediate(r));

test('caught up once the watch delivered the revision the stream had when asked', async () => {
  const q = queries();
  const c = new CatchUp(q.ask);
  c.saw(3);
  let done: boolean | undefined;
  const p = c.caughtUp(5_000).then((ok) => (done = ok));
  q.answer(5);
  await tick();
  assert.equal(done, undefined, 'revision 5 not yet delivered');
  c.saw(4);
  await tick();
  assert.equal(done, undefined);
  c.saw(5);
  assert.equal(await p, true);
  assert.equal(c.waiting, 0);
});

test('already caught up: true without waiting for the watch', async () => {
  const q = queries();
  const c = new CatchUp(q.ask);
  c.saw(9);
  const p = c.caughtUp(5_000);
  q.answer(7);
  assert.equal(await p, true);
});

test('a reader that gives up after maxMs answers false and leaves no waiter behind', async () => {
  const q = queries();
  // The give-up timer fires when the test says, not when a busy machine gets round to it.
  const timers: Array<{ ms: number; fire: () => void }> = [];
  const c = new CatchUp(q.ask, (ms, fire) => {
    timers.push({ ms, fire });
    return () => {};
  });
  const p = c.caughtUp(20);
  q.answer(50);
  await tick();
  assert.equal(c.waiting, 1);
  assert.deepEqual(timers.map((t) => t.ms), [20], 'one give-up timer of maxMs');
  timers[0]!.fire();
  assert.equal(await p, false);
  assert.equal(c.waiting, 0, 'the timed-out waiter is gone before the watch reaches its revision');
  c.saw(50); // nothing left to wake
  assert.equal(c.waiting, 0);
});

test('readers arriving while a query is out share the next query, never the one in flight', async () => {
  const q = queries();
  const c = new CatchUp(q.ask);
  const first = c.caughtUp(5_000);
  assert.equal(q.count, 1);
  const second = c.caughtUp(5_000), third = c.caughtUp(5_000);
  await tick();
  assert.equal(q.count, 1, 'the later readers wait for the first query to end before theirs is sent');
  c.saw(10);
  q.answer(10); // the first query: the first reader is caught up
  assert.equal(await first, true);
  await tick();
  assert.equal(q.count, 1, 'one query for both later readers');
  q.answer(12); // a write acknowledged after the first query was answered
  await tick();
  assert.equal(c.waiting, 2);
  c.saw(12);
  assert.deepEqual(await Promise.all([second, third]), [true, true]);
});
