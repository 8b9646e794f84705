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
 * Per-thread counts merge into LMDB every FLUSH_EVERY stays (store.ts `mergeSparse`), as the
 * footprints do, so the weight is shared by the workers and survives restarts.
 */
import type { SparseSync } from './footprint.js';

export const COUNTED = {
  /** Pseudo-stays the store's own class shares are worth. */
  priorStays: 20,
  /** Merge into the shared store after this many stays. */
  flushEvery: 200,
  /** 0 switches the factor off (the accuracy harness ablates it this way). */
  on: 1,
};

/** Keys of the sparse table: probability mass of confirmed stays on counted / uncounted venues. */
const K_COUNTED = 0, K_UNCOUNTED = 1;
const TABLE = 'counted';

interface AppTable {
  base: Map<number, number>; pending: Map<number, number>; stays: number;
  /** The current bonus, for the class sizes it was worked out with (a new import may change them). */
  bonus: number; count: number; counted: number;
}
const stores = new WeakMap<SparseSync, Map<string, AppTable>>();

/** What the store holds: `counted` of `count` venues have a visit count. */
export interface ClassSizes { count: number; counted: number }

const mixed = (s: ClassSizes): boolean => s.counted > 0 && s.counted < s.count;

function table(app: string, sync: SparseSync, sizes: ClassSizes): AppTable {
  let apps = stores.get(sync);
  if (!apps) stores.set(sync, (apps = new Map()));
  let t = apps.get(app);
  if (!t) {
    t = { base: sync.mergeSparse(TABLE, app, new Map()), pending: new Map(), stays: 0, bonus: 0, count: 0, counted: 0 };
    apps.set(app, t);
  }
  if (t.count !== sizes.count || t.counted !== sizes.counted) setBonus(t, sizes);
  return t;
}

const get = (t: AppTable, k: number): number => (t.base.get(k) ?? 0) + (t.pending.get(k) ?? 0);

function setBonus(t: AppTable, s: ClassSizes): void {
  const uncounted = s.count - s.counted;
  const A = COUNTED.priorStays;
  // π_c ∝ A · N_c / N + mass_c; the prior alone gives a bonus of 0.
  const pc = A * (s.counted / s.count) + get(t, K_COUNTED);
  const pu = A * (uncounted / s.count) + get(t, K_UNCOUNTED);
  t.bonus = Math.log(pc / s.counted) - Math.log(pu / uncounted);
  t.count = s.count; t.counted = s.counted;
}

/** Log prior ratio (nats) of a venue by whether its source counted visits. */
export function countedLog(app: string, sync: SparseSync, sizes: ClassSizes, popularity: number): number {
  if (!COUNTED.on || popularity < 0 || !mixed(sizes)) return 0;
  return table(app, sync, sizes).bonus;
}

/** A confirmed stay teaches the class masses of its ranked venues (probabilities, "none" left out). */
export function learnCounted(app: string, sync: SparseSync, sizes: ClassSizes, ranked: ReadonlyArray<{ venue: { popularity: number }; probability: number }>): void {
  if (!COUNTED.on || !mixed(sizes) || ranked.length === 0) return;
  let c = 0, u = 0;
  for (const r of ranked) { if (r.venue.popularity >= 0) c += r.probability; else u += r.probability; }
  if (!(c + u > 0)) return;
  const t = table(app, sync, sizes);
  t.pending.set(K_COUNTED, (t.pending.get(K_COUNTED) ?? 0) + c / (c + u));
  t.pending.set(K_UNCOUNTED, (t.pending.get(K_UNCOUNTED) ?? 0) + u / (c + u));
  if (++t.stays >= COUNTED.flushEvery) {
    t.base = sync.mergeSparse(TABLE, app, t.pending);
    t.pending = new Map();
    t.stays = 0;
  }
  setBonus(t, sizes);
}
