/**
 * The postback retry schedule (contract §3), pure so that tests drive it with their own clock
 * and random source instead of sleeping.
 *
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And
 * Jitter"): the n-th retry waits a uniform draw from [0, min(cap, 2·base·2^(n-1))], so the first
 * retry comes after about `base` on average and a crowd of failed triggers does not retry in
 * lock-step against a receiver that is coming back. A small floor keeps a draw near 0 from
 * hammering a receiver that has just failed.
 *
 * Retries go on until `windowMs` after the trigger was created (or last replayed); the last
 * attempt is placed exactly at the end of the window, and a failure past it is final: dead.
 */
export interface BackoffPolicy {
  /** Mean wait before the first retry, ms. */
  baseMs: number;
  /** Longest wait between two attempts, ms. */
  capMs: number;
  /** Shortest wait between two attempts, ms. */
  floorMs: number;
  /** How long after creation a trigger is retried before it is dead, ms. */
  windowMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseMs: 1_000,
  capMs: 5 * 60_000,
  floorMs: 100,
  windowMs: 24 * 3600_000,
};

export type RetryDecision = { retryAt: number } | { dead: true; reason: string };

/** The ceiling of the jitter draw after `failures` failed attempts (1 for the first retry). */
export function ceilingMs(failures: number, p: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exp = Math.min(failures - 1, 40); // 2^40 s is far past any cap; avoids Infinity
  return Math.min(p.capMs, 2 * p.baseMs * 2 ** Math.max(0, exp));
}

/**
 * What to do after the `failures`-th failed attempt of a trigger whose window started at
 * `startedAt` (ms), at time `now` (ms); `random` returns a number in [0, 1).
 */
export function nextRetry(failures: number, startedAt: number, now: number, random: () => number, p: BackoffPolicy = DEFAULT_BACKOFF): RetryDecision {
  const deadline = startedAt + p.windowMs;
  if (now >= deadline) {
    return { dead: true, reason: `gave up after ${failures} attempt(s) over ${Math.round(p.windowMs / 3600_000)} h` };
  }
  const wait = Math.max(p.floorMs, Math.floor(random() * ceilingMs(failures, p)));
  return { retryAt: Math.min(now + wait, deadline) };
}
