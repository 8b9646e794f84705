/**
 * What a near search answers of each fence, kept per slot of the index it searched: the public
 * record as open JSON (public.ts), its tag and its expiry. Without it every item of every page was
 * an LMDB read and decode, a copy and a JSON.stringify (about 9 µs of the server's thread a fence,
 * three quarters of a 100-fence page's CPU; docs/performance.md, geofences-bulk).
 *
 * Why a slot and not an id: between two rebuilds of an index a slot is one version of one fence
 * (every change of a fence reaches the index as an upsert, which takes a new slot, whether the
 * index is worker.ts's, brought up to date from the change log before each search, or the
 * cluster's mirror.ts), so an entry never goes stale; a rebuild renumbers the slots and empties the
 * cache (FenceIndex.generation). An index that is replaced takes its cache with it (WeakMap).
 *
 * Memory: at most BUDGET_CHARS of JSON an index (about 100,000 fences with short metadata), on the
 * main thread; past it the cache starts again empty, which costs a page its reads and nothing else.
 */
import type { StoredGeofence } from '../schemas/geofence.js';
import type { FenceIndex } from './fence-index.js';
import { openJson } from './public.js';

const BUDGET_CHARS = 32 * 2 ** 20;

export interface NearEntry { id: string; tag: string | null; expires: number; json: string }

export class NearCache {
  private generation = -1;
  private entries = new Map<number, NearEntry>();
  private chars = 0;

  constructor(private readonly index: FenceIndex) {}

  /** The entry of slot `s`, read through `record` the first time; undefined when the fence has no record. */
  entry(s: number, record: (id: string) => StoredGeofence | undefined): NearEntry | undefined {
    if (this.generation !== this.index.generation) this.clear();
    const hit = this.entries.get(s);
    if (hit) return hit;
    const id = this.index.idOf(s);
    const rec = record(id);
    if (!rec) return undefined; // not cached: a fence deleted under its slot is read again, and answers the same
    const e: NearEntry = { id, tag: rec.tag, expires: rec.expires_at === null ? Infinity : Date.parse(rec.expires_at), json: openJson(rec) };
    if (this.chars + e.json.length > BUDGET_CHARS) this.clear();
    this.chars += e.json.length;
    this.entries.set(s, e);
    return e;
  }

  private clear(): void {
    this.generation = this.index.generation;
    this.entries = new Map();
    this.chars = 0;
  }
}

const caches = new WeakMap<FenceIndex, NearCache>();

export function nearCache(index: FenceIndex): NearCache {
  let c = caches.get(index);
  if (!c) caches.set(index, (c = new NearCache(index)));
  return c;
}
