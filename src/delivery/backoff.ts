/**
 * The postback retry schedule (contract §3), pure so that tests drive it with their own clock
 * and random source instead of sleeping. Attempts are spaced as every delivery's are
 * (`retry-delay.ts`); retries go on until `windowMs` after the trigger was created (or last
 * replayed); the last attempt is placed exactly at the end of the window, and a failure past it
 * is final: dead.
 */
import { RETRY_SPACING, retryDelayMs, type RetrySpacing } from './retry-delay.js';

export interface BackoffPolicy extends RetrySpacing {
  /** How long after creation a trigger is retried before it is dead, ms. */
  windowMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { ...RETRY_SPACING, windowMs: 24 * 3600_000 };

export type RetryDecision = { retryAt: number } | { dead: true; reason: string };

/**
 * What to do after the `failures`-th failed attempt of a trigger whose window started at
 * `startedAt` (ms), at time `now` (ms); `random` returns a number in [0, 1).
 */
export function nextRetry(failures: number, startedAt: number, now: number, random: () => number, p: BackoffPolicy = DEFAULT_BACKOFF): RetryDecision {
  const deadline = startedAt + p.windowMs;
  if (now >= deadline) {
    return { dead: true, reason: `gave up after ${failures} attempt(s) over ${Math.round(p.windowMs / 3600_000)} h` };
  }
  return { retryAt: Math.min(now + retryDelayMs(failures, random, p), deadline) };
}
