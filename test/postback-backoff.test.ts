/** The retry schedule of contract §3 with an injected clock and random source: no sleeping. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BACKOFF, nextRetry } from '../src/delivery/backoff.js';
import { ceilingMs } from '../src/delivery/retry-delay.js';

const H = 3600_000;
const t0 = Date.UTC(2024, 4, 6, 12);

test('the first retry comes after about 1 s, and never at once', () => {
  const mid = nextRetry(1, t0, t0, () => 0.5);
  assert.deepEqual(mid, { retryAt: t0 + 1000 });
  const low = nextRetry(1, t0, t0, () => 0);
  assert.deepEqual(low, { retryAt: t0 + DEFAULT_BACKOFF.floorMs });
  const high = nextRetry(1, t0, t0, () => 0.999999);
  assert.ok('retryAt' in high && high.retryAt - t0 <= 2000 && high.retryAt - t0 > 1990);
});

test('the ceiling doubles per failure and is capped at 5 minutes', () => {
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => ceilingMs(n)), [2000, 4000, 8000, 16000, 32000]);
  assert.equal(ceilingMs(9), 300_000);
  assert.equal(ceilingMs(1000), 300_000, 'no overflow for absurd counts');
  for (let n = 1; n < 60; n++) {
    const r = nextRetry(n, t0, t0 + H, () => 0.999999);
    assert.ok('retryAt' in r && r.retryAt - (t0 + H) <= 300_000, `interval after ${n} failures is capped`);
  }
});

test('full jitter spreads retries over the whole interval', () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const waits = Array.from({ length: 2000 }, () => {
    const r = nextRetry(4, t0, t0, random);
    assert.ok('retryAt' in r);
    return r.retryAt - t0;
  });
  const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
  assert.ok(Math.min(...waits) < 1000 && Math.max(...waits) > 15000, 'draws cover [0, 16 s]');
  assert.ok(mean > 7000 && mean < 9000, `mean ${mean} is about half the ceiling`);
});

test('retries go on for 24 hours after creation, the last one placed at the deadline, then dead', () => {
  const late = nextRetry(50, t0, t0 + 24 * H - 10_000, () => 0.9);
  assert.deepEqual(late, { retryAt: t0 + 24 * H }, 'clamped to the end of the window');
  const dead = nextRetry(51, t0, t0 + 24 * H, () => 0.5);
  assert.ok('dead' in dead);
  assert.match(dead.reason, /51 attempt\(s\) over 24 h/);
});

test('a whole 24 h of failures, simulated with the clock: about 580 attempts, then dead', () => {
  let now = t0;
  let failures = 0;
  for (;;) {
    failures++;
    const r = nextRetry(failures, t0, now, () => 0.5);
    if ('dead' in r) break;
    assert.ok(r.retryAt > now, 'time always moves on');
    now = r.retryAt;
  }
  assert.equal(now, t0 + 24 * H, 'the last attempt was at the deadline');
  assert.ok(failures > 500 && failures < 650, `${failures} attempts`);
});
