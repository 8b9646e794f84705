/**
 * What an app's detections learn, kept beside its users in the same LMDB environment: access
 * points' places (['apx', app, bssid]), pooled stays of joined networks (['pv', app, bssid]),
 * beacons nobody registered, by the venues they were heard at (['bl', app, uuid:major:minor]),
 * kind priors (['kp', app]) and sparse learned tables such as footprints (['ks', name, app]).
 * Reads go through per-thread caches kept exact across threads and processes (cache.ts).
 */
import type { Database, RootDatabase } from 'lmdb';
import { LearnedCache, type Versions } from './cache.js';
import { cacheEntries } from '../cache-budget.js';
import type { ApPlace, HeardBeacon, PooledAp } from './shapes.js';
import { withWitness } from '../integrity/networks.js';

export interface ApObservation {
  /** The access point's BSSID; with `beacon`, a beacon's uuid:major:minor. */
  bssid: string;
  /** A beacon nobody registered, heard at a confident stay: [venue id, probability, rssi − tx_power, …]. */
  beacon?: Array<string | number>;
  /** A joined network: the stay's GPS candidates to pool (rank.ts GpsMemo). */
  pool?: Array<string | number>;
  /** Where a confirmed stay heard it: [lat, lon, weight] (position.ts), and the tag of the user who stayed (integrity/networks.ts). */
  at?: [number, number, number] | [number, number, number, number];
}

export interface LearnedTables {
  /** Runs `fn` in a write transaction; the learned keys it wrote are published once it commits. */
  teaching<T>(fn: () => T): T;
  /** Teaches access points seen at confident visits: call inside `teaching`. */
  learn(app: string, aps: ApObservation[]): void;
  /** Learned places of access points for this app, in the order asked. */
  apPlaces(app: string, bssids: readonly string[]): Array<ApPlace | undefined>;
  /** What the app's confident stays taught of these unregistered beacons (uuid:major:minor), in the order asked. */
  learnedBeacons(app: string, keys: readonly string[]): Array<HeardBeacon | undefined>;
  /** Pooled GPS evidence per joined BSSID for this app, in the order asked ('' → undefined). */
  pooledAps(app: string, bssids: readonly string[]): Array<PooledAp | undefined>;
  /** Adds a thread's new kind × hour and dwell counts to the app's stored ones; answers the sum. */
  mergePriors(app: string, pending: Float64Array): Float64Array;
  /** Adds a thread's new sparse counts to the app's table `name` (['ks', name, app]); answers the sum. */
  mergeSparse(name: string, app: string, pending: ReadonlyMap<number, number>): Map<number, number>;
  /** Starts a new read snapshot of the caches. */
  begin(): void;
}

export const MAX_POOLED_VENUES = 24;
/**
 * An access point's place is a weighted mean of the stays that heard it: after this many, one
 * more moves it by a few percent of its spread, so the read stays and the write goes. A router
 * that moves keeps its old place; fusion's 3σ gate (position.ts) then ignores it. Offline top1
 * unchanged (Monaco m1, m2, NYC s2); bench/http-task's worker task 0.82 → 0.77 ms a request.
 */
export const AP_PLACE_MAX_STAYS = 64;
/**
 * A joined network's pooled evidence after this many stays is settled (each stay adds up to
 * POOL_FLOOR nats against a venue it did not list; the bonus is capped at −10), so it is no
 * longer rewritten. Offline top1 unchanged on NYC s1, s2, Monaco m1, m2 (few vdsim networks
 * reach it); bench/http-task, whose phones join the same few networks again and again: about
 * 0.77 → 0.72 ms a request (noisy: 0.70–0.76 in five runs).
 */
export const POOL_MAX_STAYS = 32;
export const POOL_FLOOR = -4;

/** A joined network's pooled evidence with one more stay's candidates; undefined once settled. Pure: the stored value is not changed. */
export function pooledWith(stored: PooledAp | undefined, c: Array<string | number>): PooledAp | undefined {
  if ((stored?.n ?? 0) >= POOL_MAX_STAYS) return undefined;
  return pooledInto(stored ? { n: stored.n, v: Object.fromEntries(Object.entries(stored.v).map(([k, e]) => [k, [e[0], e[1]]])) } as PooledAp : undefined, c);
}

/**
 * The same, changing `stored` itself: for a value decoded for this write alone (learn's read in
 * its transaction), where pooledWith's copy (Object.entries, the entries' arrays, fromEntries)
 * was a third of the pooled network's write.
 */
export function pooledInto(stored: PooledAp | undefined, c: Array<string | number>): PooledAp | undefined {
  if ((stored?.n ?? 0) >= POOL_MAX_STAYS) return undefined;
  const p: PooledAp = stored ?? { n: 0, v: {} };
  for (let i = 0; i + 1 < c.length; i += 2) {
    const id = c[i] as string;
    const e = p.v[id];
    // A venue new to the pool missed the earlier stays' lists: it takes the floor for them.
    if (e) { e[0] += c[i + 1] as number; e[1]++; } else p.v[id] = [(c[i + 1] as number), 1];
  }
  p.n++;
  const ids = Object.keys(p.v);
  if (ids.length > MAX_POOLED_VENUES) {
    const sc = (id: string) => p.v[id][0] + (p.n - p.v[id][1]) * POOL_FLOOR;
    ids.sort((a, b) => sc(a) - sc(b));
    for (let i = 0; i < ids.length - MAX_POOLED_VENUES; i++) delete p.v[ids[i]];
  }
  return p;
}

/**
 * A learned beacon after this many stays is settled (its venues' mean rssi moves by a fraction of
 * a dB more), so it is no longer rewritten; it keeps its heaviest venues.
 */
export const BEACON_MAX_STAYS = 64;
export const MAX_BEACON_VENUES = 16;

/** A learned beacon with one more confident stay's venues ([id, w, x, …]); undefined once settled. Pure. */
export function beaconWith(stored: HeardBeacon | undefined, heard: ReadonlyArray<string | number>): HeardBeacon | undefined {
  if ((stored?.n ?? 0) >= BEACON_MAX_STAYS) return undefined;
  const b: HeardBeacon = { n: (stored?.n ?? 0) + 1, v: {} };
  if (stored) for (const id in stored.v) b.v[id] = [stored.v[id][0], stored.v[id][1]];
  for (let i = 0; i + 2 < heard.length; i += 3) {
    const id = heard[i] as string, w = heard[i + 1] as number, x = heard[i + 2] as number;
    const e = b.v[id];
    if (e) { e[0] = r3(e[0] + w); e[1] = r3(e[1] + w * x); } else b.v[id] = [r3(w), r3(w * x)];
  }
  const ids = Object.keys(b.v);
  if (ids.length > MAX_BEACON_VENUES) {
    ids.sort((a, c) => b.v[a][0] - b.v[c][0]);
    for (let i = 0; i < ids.length - MAX_BEACON_VENUES; i++) delete b.v[ids[i]];
  }
  return b;
}
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** An access point's place with one more confident stay that heard it; undefined once settled. */
export function placedAt(stored: ApPlace | undefined, [lat, lon, w, user]: NonNullable<ApObservation['at']>): ApPlace | undefined {
  const p = stored ?? [0, 0, 0, 0];
  if (p[3] >= AP_PLACE_MAX_STAYS) return undefined;
  return withWitness([p[0] + w, p[1] + w * lat, p[2] + w * lon, p[3] + 1], stored, lat, lon, user);
}

/** Stored priors plus a thread's pending counts (rounded as stored). */
export function priorsPlus(stored: readonly number[] | undefined, pending: Float64Array): Float64Array {
  const out = new Float64Array(pending.length);
  for (let i = 0; i < out.length; i++) out[i] = (stored?.[i] ?? 0) + pending[i];
  return out;
}

/** A sparse table stored flat ([index, value, …]) plus pending counts. */
export function sparsePlus(stored: readonly number[] | undefined, pending: ReadonlyMap<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  const s = stored ?? [];
  for (let i = 0; i + 1 < s.length; i += 2) out.set(s[i], s[i + 1]);
  for (const [k, v] of pending) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

export function flatSparse(m: ReadonlyMap<number, number>): number[] {
  const flat: number[] = [];
  for (const [k, v] of m) flat.push(k, Math.round(v * 1000) / 1000);
  return flat;
}

export function learnedTables(root: RootDatabase, versions: Versions): LearnedTables {
  const db: Database = root;
  // Access points' places and pooled evidence as last read: settled ones never change, most
  // scanned ones are unknown. Bounded apart, by DWELL_CACHE_MB (cache-budget.ts).
  const places = new LearnedCache<ApPlace>(versions, cacheEntries('apPlaces'), 'apx');
  const pools = new LearnedCache<PooledAp>(versions, cacheEntries('pooledAps'), 'pv');
  /** The slots of the learned keys written by the open transaction, published once it commits. */
  const written: number[] = [];

  /** Merges an observation into a value that stops changing at `max` stays (its cache says so without a read). */
  const saturating = <V extends { n: number }, O>(cache: LearnedCache<V>, max: number, merge: (stored: V | undefined, o: O) => V | undefined) =>
    (app: string, name: string, o: O) => {
      if ((cache.peek(app, name)?.n ?? 0) >= max) return;
      const key = [cache.kind, app, name];
      const v = merge(db.get(key) as V | undefined, o);
      if (!v) return;
      db.putSync(key, v);
      written.push(cache.slot(app, name));
    };
  // lmdb-js decodes a stored value afresh on every get (no value cache): the write's own copy, changed in place.
  const pool = saturating(pools, POOL_MAX_STAYS, pooledInto);

  // Learned beacons share the pooled networks' share of DWELL_CACHE_MB: a city has a few beacons per
  // hectare against dozens of networks.
  const beacons = new LearnedCache<HeardBeacon>(versions, Math.max(256, cacheEntries('pooledAps') >> 2), 'bl');
  const teachBeacon = saturating(beacons, BEACON_MAX_STAYS, beaconWith);

  const learn = (app: string, obs: ApObservation[]) => {
    for (const o of obs) {
      if (o.beacon) { teachBeacon(app, o.bssid, o.beacon); continue; }
      if (o.pool) { pool(app, o.bssid, o.pool); continue; }
      if (o.at) {
        if ((places.peek(app, o.bssid)?.[3] ?? 0) >= AP_PLACE_MAX_STAYS) continue;
        const key = ['apx', app, o.bssid];
        const p = placedAt(db.get(key) as ApPlace | undefined, o.at);
        if (!p) continue;
        db.putSync(key, p);
        written.push(places.slot(app, o.bssid));
      }
    }
  };

  // The caches' reads on a miss, made once (a closure per lookup was an allocation each).
  const loadPlace = (app: string, b: string) => db.get(['apx', app, b]) as ApPlace | undefined;
  const loadPool = (app: string, b: string) => db.get(['pv', app, b]) as PooledAp | undefined;
  const loadBeacon = (app: string, k: string) => db.get(['bl', app, k]) as HeardBeacon | undefined;

  return {
    teaching<T>(fn: () => T): T {
      written.length = 0;
      const result = root.transactionSync(fn);
      LearnedCache.published(versions, written);
      written.length = 0;
      return result;
    },
    learn,
    begin: () => { places.begin(); pools.begin(); beacons.begin(); },
    mergePriors: (app, pending) => root.transactionSync(() => {
      const key = ['kp', app];
      const stored = db.get(key) as number[] | undefined;
      const out = new Float64Array(pending.length);
      let any = false;
      for (let i = 0; i < out.length; i++) { out[i] = (stored?.[i] ?? 0) + pending[i]; if (pending[i] !== 0) any = true; }
      if (any) db.putSync(key, Array.from(out, (x) => Math.round(x * 1000) / 1000));
      return out;
    }),
    mergeSparse: (name, app, pending) => root.transactionSync(() => {
      const key = ['ks', name, app];
      // Stored flat, [index, value, index, value, …]: a few hundred types of thousands.
      const stored = (db.get(key) as number[] | undefined) ?? [];
      const out = new Map<number, number>();
      for (let i = 0; i + 1 < stored.length; i += 2) out.set(stored[i], stored[i + 1]);
      if (pending.size === 0) return out;
      for (const [k, v] of pending) out.set(k, (out.get(k) ?? 0) + v);
      const flat: number[] = [];
      for (const [k, v] of out) flat.push(k, Math.round(v * 1000) / 1000);
      db.putSync(key, flat);
      return out;
    }),
    // Cached values are shared: callers only read them (learn re-reads inside its transaction).
    apPlaces: (app, bssids) => bssids.map((b) => (b ? places.get(app, b, loadPlace) : undefined)),
    pooledAps: (app, bssids) => bssids.map((b) => (b ? pools.get(app, b, loadPool) : undefined)),
    learnedBeacons: (app, keys) => keys.map((k) => beacons.get(app, k, loadBeacon)),
  };
}
