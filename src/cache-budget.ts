/**
 * The memory bound of the detection workers' in-heap caches (DWELL_CACHE_MB, issue 21): learned
 * access-point places, pooled evidence of joined networks, decoded venue records, estimated
 * addresses by ~100 m cell and Wi-Fi name keys. Not counted: the offline gazetteer and country
 * borders each thread loads once (about 55 MB of heap a thread, fixed, venues/places.ts), each
 * worker's young generation (64 MB, server/pool.ts) and the garbage V8 lets the old generation
 * gather before a full collection. bench:soak at 300 req/s, NYC, 2 workers, this default: anonymous
 * memory flat at 480–484 MB from minute 4 of 7, worker heaps 82–85 MB after each full collection
 * (docs/performance.md, soak-300rps-balanced); 512 gave the same, 16 thrashed (caches cleared and
 * refilled, memory rising past 790 MB, GC 2–3 × as long): size it to the working set, not below.
 * The whole process follows from it only by a measured formula (docs/performance.md, "The plateau,
 * from the settings"): anonymous ≈ workers × (64 MB fixed + this share + as much garbage again
 * before V8's next full collection + 64 MB young generation) + ~100 MB for the main and delivery
 * threads, i.e. ≲ workers × 192 + 2 × DWELL_CACHE_MB + 100 MB. Not a hard limit: a worker past
 * an old-generation limit is ended by Node and its tasks fail. Each thread keeps its own copies (worker threads share no heap), so the budget is split
 * evenly between the workers, then between the caches by the shares below, and each cache holds
 * at most its share divided by the estimated heap size of one entry (key, value and map slot).
 *
 * Read in each worker from its environment (server/pool.ts sets DWELL_CACHE_MB and DWELL_WORKERS
 * for the workers from the validated config); outside a server (benchmarks, tests) the default.
 */
import { availableParallelism } from 'node:os';

export const DEFAULT_CACHE_MB = 128;

const CACHES = {
  /** learned/tables.ts: an access point's place, 4 numbers, or "unknown". */
  apPlaces: { share: 0.25, bytes: 200 },
  /** learned/tables.ts: a joined network's pooled stays, up to 24 venues. */
  pooledAps: { share: 0.25, bytes: 2048 },
  /** venues/store.ts: a decoded, frozen venue record with its address. */
  venueRecords: { share: 0.2, bytes: 1024 },
  /** venues/address.ts: a ~100 m cell's gazetteer place and estimated address (both maps). */
  addressCells: { share: 0.2, bytes: 400 },
  /** detect/evidence/wifi.ts: a venue's name keys, an SSID's key (half each). */
  wifiKeys: { share: 0.1, bytes: 160 },
} as const;

export type CacheName = keyof typeof CACHES;

const MIN_ENTRIES = 1024;

/** How many entries the cache `name` of this thread may hold. */
export function cacheEntries(name: CacheName, env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.DWELL_CACHE_MB) > 0 ? Number(env.DWELL_CACHE_MB) : DEFAULT_CACHE_MB;
  const workers = Number(env.DWELL_WORKERS) > 0 ? Number(env.DWELL_WORKERS) : availableParallelism();
  const c = CACHES[name];
  return Math.max(MIN_ENTRIES, Math.floor((mb * 2 ** 20 * c.share) / workers / c.bytes));
}
