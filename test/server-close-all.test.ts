/**
 * Closing the server (server/app.ts) and its cluster state (server/state-cluster.ts) runs every
 * step even when one fails, then fails naming the steps that did: a failing privacy close must
 * not leave the delivery thread and the state connections open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeAll } from '../src/server/close-all.js';

test('every step of a close runs though one fails, and the close then fails naming it', async () => {
  const ran: string[] = [];
  const step = (name: string, fail = false) => [name, async () => { ran.push(name); if (fail) throw new Error(`${name} would not close`); }] as const;
  await assert.rejects(closeAll('server', [step('pool'), step('privacy', true), step('delivery'), step('state', true)]), (err: AggregateError) => {
    assert.match(err.message, /privacy, state/);
    assert.deepEqual(err.errors.map((e: Error) => e.message), ['privacy would not close', 'state would not close']);
    return true;
  });
  assert.deepEqual(ran, ['pool', 'privacy', 'delivery', 'state']);
});

test('a close whose steps all succeed resolves, in order, synchronous steps included', async () => {
  const ran: string[] = [];
  await closeAll('server', [['timer', () => { ran.push('timer'); }], ['store', async () => { ran.push('store'); }]]);
  assert.deepEqual(ran, ['timer', 'store']);
});
