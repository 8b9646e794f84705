/**
 * The server's test clock (src/time/clock.ts): tests of TTLs, expiry, retention and backoff
 * start Dwell with TEST_CLOCK and move its time forward instead of sleeping.
 */
import assert from 'node:assert/strict';
import { admin } from './client.js';
import type { Running } from './server.js';

/** The setting that lets POST /admin/clock move the server's time (never set in production). */
export const TEST_CLOCK = { DWELL_TEST_CLOCK: '1' } as const;

/** Moves the server's time forward by `seconds` (every node of a cluster pair alike); answers its new time, ms. */
export async function advance(dwell: Running, seconds: number): Promise<number> {
  let now = 0;
  for (const node of dwell.nodes ?? [dwell]) {
    const r = await admin(node.url, '/admin/clock', { body: { advance_s: seconds } });
    assert.equal(r.status, 200, `POST /admin/clock: ${JSON.stringify(r.body)}`);
    now = Math.max(now, r.body.now_ms);
  }
  return now;
}
