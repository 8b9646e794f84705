/**
 * Retry spacing after failed uploads, per app: exponential from 1 s, capped at 5 minutes, with
 * jitter so that many apps failing at once (a provider outage) do not retry in lockstep.
 */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 300_000;

/** `failures` ≥ 1: consecutive failed uploads. Equal jitter: between half and all of the step. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return Math.round(step / 2 + random() * (step / 2));
}
