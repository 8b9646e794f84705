/**
 * The two readings of time that must stay real when the server's clock (clock.ts) is moved by a
 * test. Every other reading of time in src/ goes through `clock.now()`; `npm run lint:clock`
 * refuses Date.now() outside src/time.
 *
 * This file imports nothing: the customers' client (src/client/) uses it too.
 */

/**
 * The time of day on this machine's real clock, ms since the epoch: for what is compared with
 * another party's clock rather than decided by the server's. A request's X-Timestamp against the
 * caller's clock (contract §1, and the replays remembered for as long as it is fresh), a
 * postback's timestamp against the receiver's, a client's own signing and Retry-After dates. A
 * test that moves the server's clock by a day must not make every signed request stale.
 */
export function wallNow(): number {
  return Date.now();
}

/**
 * A reading to measure elapsed time with (durations, timeouts, retry windows, progress), ms from
 * an arbitrary origin: never a time of day, and never moved, so a timeout is real time waited.
 */
export function monotonicMs(): number {
  return performance.now();
}
