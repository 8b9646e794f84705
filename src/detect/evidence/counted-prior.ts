/**
 * Counted or not: how much likelier a visit is to a venue whose source counts visits (a check-in
 * service's) than to one whose source does not (a map's point: a monument, a school building, a
 * bench), learned online per app. A store that merges both kinds of source holds many points
 * nobody visits as a destination; their share of real visits is for the app's traffic to say, not
 * for a constant.
 *
 * It is the mixing weight of a two-class mixture, fitted by online EM: each venue's prior is
 * π_c / N_c (N_c venues of class c in the store), and every confirmed stay adds its ranking's
 * probability mass on each class to the class's count. Counted venues get
 * log(π_counted / N_counted) − log(π_uncounted / N_uncounted); uncounted ones are the reference,
 * so a store of one class (every OSM import) ranks exactly as without this factor. The store's
 * own class shares are the prior, worth PRIOR_STAYS stays.
 *
 * Per-thread counts merge into LMDB every FLUSH_EVERY stays (sparse-table.ts), as the
 * footprints do, so the weight is shared by the workers and survives restarts.
 */
import { sparseTable, type SparseSync, type SparseTable } from './sparse-table.js';
import type { CountedParams } from '../params.js';

/** Keys of the sparse table: probability mass of confirmed stays on counted / uncounted venues. */
const K_COUNTED = 0, K_UNCOUNTED = 1;
const TABLE = 'counted';

/** What the store holds: `counted` of `count` venues have a visit count. */
export interface ClassSizes { count: number; counted: number }

const mixed = (s: ClassSizes): boolean => s.counted > 0 && s.counted < s.count;

/** The bonus last worked out per table, with the class sizes it was worked out for (a new import may change them). */
const bonuses = new WeakMap<SparseTable, { bonus: number; count: number; counted: number; prior: number }>();

function bonusOf(t: SparseTable, s: ClassSizes, A: number): number {
  const had = bonuses.get(t);
  if (had && had.count === s.count && had.counted === s.counted && had.prior === A) return had.bonus;
  const uncounted = s.count - s.counted;
  // π_c ∝ A · N_c / N + mass_c; the prior alone gives a bonus of 0.
  const pc = A * (s.counted / s.count) + t.get(K_COUNTED);
  const pu = A * (uncounted / s.count) + t.get(K_UNCOUNTED);
  const bonus = Math.log(pc / s.counted) - Math.log(pu / uncounted);
  bonuses.set(t, { bonus, count: s.count, counted: s.counted, prior: A });
  return bonus;
}

/** Log prior ratio (nats) of any counted venue against an uncounted one; 0 when off or the store has one class. */
export function countedBonus(app: string, sync: SparseSync, sizes: ClassSizes, C: CountedParams): number {
  if (!C.on || !mixed(sizes)) return 0;
  return bonusOf(sparseTable(TABLE, app, sync), sizes, C.priorStays);
}

/** Log prior ratio (nats) of a venue by whether its source counted visits. */
export function countedLog(app: string, sync: SparseSync, sizes: ClassSizes, popularity: number, C: CountedParams): number {
  return popularity < 0 ? 0 : countedBonus(app, sync, sizes, C);
}

/** A confirmed stay teaches the class masses of its ranked venues (probabilities, "none" left out). */
export function learnCounted(app: string, sync: SparseSync, sizes: ClassSizes, ranked: ReadonlyArray<{ venue: { popularity: number }; probability: number }>, C: CountedParams): void {
  if (!C.on || !mixed(sizes) || ranked.length === 0) return;
  let c = 0, u = 0;
  for (const r of ranked) { if (r.venue.popularity >= 0) c += r.probability; else u += r.probability; }
  if (!(c + u > 0)) return;
  const t = sparseTable(TABLE, app, sync);
  t.add(K_COUNTED, c / (c + u));
  t.add(K_UNCOUNTED, u / (c + u));
  t.stayDone(C.flushEvery);
  bonuses.delete(t);
}
