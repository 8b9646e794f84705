/**
 * How long a failed delivery waits before its next attempt: the one spacing policy of contract §3
 * ("first retry after about 1 s, intervals capped at 5 minutes"), for postbacks and bucket
 * exports alike. Pure: tests drive it with their own random source instead of sleeping.
 *
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And
 * Jitter"): the n-th retry waits a uniform draw from [0, min(cap, 2·base·2^(n-1))], so the first
 * retry comes after about `base` on average and a crowd of failures (a receiver or a provider
 * down for everyone) does not retry in lock-step against it when it comes back. A small floor
 * keeps a draw near 0 from hammering a receiver that has just failed.
 */
export interface RetrySpacing {
  /** Mean wait before the first retry, ms. */
  baseMs: number;
  /** Longest wait between two attempts, ms. */
  capMs: number;
  /** Shortest wait between two attempts, ms. */
  floorMs: number;
}

export const RETRY_SPACING: RetrySpacing = Object.freeze({ baseMs: 1_000, capMs: 5 * 60_000, floorMs: 100 });

/** The ceiling of the jitter draw after `failures` failed attempts (1 for the first retry). */
export function ceilingMs(failures: number, p: RetrySpacing = RETRY_SPACING): number {
  const exp = Math.min(failures - 1, 40); // 2^40 s is far past any cap; avoids Infinity
  return Math.min(p.capMs, 2 * p.baseMs * 2 ** Math.max(0, exp));
}

/** The wait after the `failures`-th consecutive failure; `random` returns a number in [0, 1). */
export function retryDelayMs(failures: number, random: () => number = Math.random, p: RetrySpacing = RETRY_SPACING): number {
  return Math.max(p.floorMs, Math.floor(random() * ceilingMs(failures, p)));
}
