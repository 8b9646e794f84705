/**
 * Learned values as sums: what several stays taught (a delta, built by the same merge functions
 * as a stored value, applied to nothing) added to a stored value, per kind of key. A node sums
 * what its threads learn in a window and writes each key once (state/nats/learned-flush.ts); the
 * sum of the deltas is the value the stays would have made one by one, except where a value is
 * pruned (a pooled network keeps 24 venues, a beacon 16): pruned once at the end instead of after
 * each stay, which keeps the same heaviest venues unless two are within a stay of each other.
 * A stored value that no longer changes (tables.ts: places after 64 stays, pools after 32,
 * beacons after 64) answers undefined: nothing to write.
 */
import type { ApPlace, HeardBeacon, PooledAp } from './shapes.js';
import { withWitnesses } from '../integrity/networks.js';
import { AP_PLACE_MAX_STAYS, BEACON_MAX_STAYS, MAX_BEACON_VENUES, MAX_POOLED_VENUES, POOL_FLOOR, POOL_MAX_STAYS } from './tables.js';

/** `stored` plus `delta`; undefined when `stored` is settled. Pure. */
export type Plus<V = unknown> = (stored: V | undefined, delta: V) => V | undefined;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

const place: Plus<ApPlace> = (s, d) => {
  if (!s) return d;
  if (s[3] >= AP_PLACE_MAX_STAYS) return undefined;
  return withWitnesses([s[0] + d[0], s[1] + d[1], s[2] + d[2], s[3] + d[3]], s, d);
};

/** Venue tables ({ n, v: id → [a, b] }) added entry by entry, then cut to the `keep` highest `score`s. */
function tables<T extends { n: number; v: Record<string, [number, number]> }>(max: number, keep: number, score: (t: T, e: [number, number]) => number, round: (x: number) => number) {
  return (s: T | undefined, d: T): T | undefined => {
    if (s && s.n >= max) return undefined;
    const out = { n: (s?.n ?? 0) + d.n, v: {} as Record<string, [number, number]> } as T;
    for (const src of s ? [s.v, d.v] : [d.v]) {
      for (const id in src) {
        const e = out.v[id], x = src[id];
        out.v[id] = e ? [round(e[0] + x[0]), round(e[1] + x[1])] : [x[0], x[1]];
      }
    }
    const ids = Object.keys(out.v);
    if (ids.length > keep) {
      ids.sort((a, b) => score(out, out.v[a]) - score(out, out.v[b]));
      for (let i = 0; i < ids.length - keep; i++) delete out.v[ids[i]];
    }
    return out;
  };
}

// The same orders as tables.ts prunes by: a pooled venue's score with the floor for the stays that
// did not list it; a beacon's venues by their weight.
const pooled = tables<PooledAp>(POOL_MAX_STAYS, MAX_POOLED_VENUES, (t, e) => e[0] + (t.n - e[1]) * POOL_FLOOR, (x) => x);
const beacon = tables<HeardBeacon>(BEACON_MAX_STAYS, MAX_BEACON_VENUES, (_t, e) => e[0], r3);

/** Priors (['kp', app]): counts by index, rounded as stored. */
const counts: Plus<number[]> = (s, d) => {
  const out = new Array<number>(Math.max(s?.length ?? 0, d.length));
  for (let i = 0; i < out.length; i++) out[i] = r3((s?.[i] ?? 0) + (d[i] ?? 0));
  return out;
};

/** Sparse tables (['ks:<name>', app]), stored flat: [index, value, …]. */
const sparse: Plus<number[]> = (s, d) => {
  const m = new Map<number, number>();
  for (const flat of s ? [s, d] : [d]) for (let i = 0; i + 1 < flat.length; i += 2) m.set(flat[i], (m.get(flat[i]) ?? 0) + flat[i + 1]);
  const out: number[] = [];
  for (const [k, v] of m) out.push(k, r3(v));
  return out;
};

/** A kind that is not a sum (none today) keeps the latest delta. */
const latest: Plus = (_s, d) => d;

export function plusOf(kind: string): Plus {
  if (kind === 'apx') return place as Plus;
  if (kind === 'pv') return pooled as Plus;
  if (kind === 'bl') return beacon as Plus;
  if (kind === 'kp') return counts as Plus;
  if (kind.startsWith('ks:')) return sparse as Plus;
  return latest;
}
