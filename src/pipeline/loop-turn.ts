/**
 * Lets a detection worker's event loop turn now and then. The workers wait for tasks in
 * Atomics.wait (Piscina's 'sync' atomics, server/pool.ts), so a worker under steady load runs task
 * after task without its loop turning, and timers never fire: lmdb-js sets a setTimeout(0) at
 * every read-snapshot renewal (users/store.ts fresh(), beacons, geofences: about three a
 * detection), and with no turn they piled up, 44,000 live Timeouts a worker after 95 s at
 * 300 req/s (issue 21). A task that ends TURN_MS or more after the last turn returns through two
 * setImmediates: the second runs in the loop's next iteration, after its timers phase has fired
 * every due timer (one alone may run in the current iteration, before any timer), and V8's queued
 * GC tasks run meanwhile.
 *
 * By time, not by count: each turn costs the HTTP thread too (bench:http, CPU ms a request at the
 * peak on the main thread: never 0.076, every 512 tasks 0.078–0.087, every 32 tasks 0.086–0.096),
 * so a few turns a second whatever the rate; at the peak that leaves some 1,000 timers pending.
 */
import { performance } from 'node:perf_hooks';

export const TURN_MS = 200;

export function turningLoop<T, R>(fn: (task: T) => R, turnMs = TURN_MS, now: () => number = () => performance.now()): (task: T) => R | Promise<R> {
  let last = now();
  return (task) => {
    const result = fn(task);
    const t = now();
    if (t - last < turnMs) return result;
    last = t;
    return new Promise((resolve) => setImmediate(() => setImmediate(() => resolve(result))));
  };
}
