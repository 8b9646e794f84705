/**
 * What a visit or an event carries from the checks of its request's signals (check.ts): the
 * union of the signals behind it. A structured event's signals are a range of the request's; a
 * stream stay's are those within its time, added up across requests in its stored cluster (`x`);
 * an event's is the location that raised it.
 */
import type { Cluster } from '../users/stored.js';
import type { Integrity } from '../schemas/visit.js';
import type { Checks } from './check.js';
import { flagsOf, integrityOf } from './flags.js';

/** Evidence bits of signals [from, to). */
export function bitsIn(c: Checks, from: number, to: number): number {
  let b = 0;
  for (let i = from; i < to; i++) b |= c.bits[i];
  return b;
}

/** Evidence bits of the signals timed within [t0, t1]. */
export function bitsBetween(c: Checks, t0: number, t1: number): number {
  let b = 0;
  for (let i = 0; i < c.bits.length; i++) if (c.times[i] >= t0 && c.times[i] <= t1) b |= c.bits[i];
  return b;
}

/** Adds this request's signals within a stream stay to what the stay carries (kept with it in the user's record). */
export function gather(cl: Cluster, c: Checks): void {
  const b = (cl.x ?? 0) | bitsBetween(c, cl.f0, cl.l);
  if (b) cl.x = b;
}

/** The stay's `integrity` (its evidence bits so far). */
export const stayIntegrity = (cl: Cluster): Integrity => integrityOf(flagsOf(cl.x ?? 0));
