/**
 * Opening a store: the main thread reads index.bin once into a SharedArrayBuffer (loadStore);
 * every thread then opens the same memory in place plus LMDB read-only (openStore).
 */
import type Flatbush from 'flatbush';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { log } from '../log.js';
import { cacheEntries } from '../cache-budget.js';
import { haversineM } from '../geo/distance.js';
import { openRecords, type Records } from './records.js';
import { boxIds, nearIds, openIndex } from './spatial-index.js';
import { INDEX, RECORDS, readCurrent, readMeta, resolveVersion } from './store-layout.js';
import type { Venue } from './types.js';

/** Structured-cloneable: passed to worker threads. */
export interface StoreHandle {
  id: string; dir: string; index: SharedArrayBuffer; count: number;
  /** Venues with a visit count; NaN when the store's meta.json predates the field. */
  counted: number;
}

export interface VenueStore {
  readonly id: string;
  readonly count: number;
  /** Venues whose source counted visits (popularity ≥ 0); NaN when the store does not say. */
  readonly counted: number;
  /** Venues within radiusM of a point, nearest first (exact metre distance), at most max. Records are frozen (cached per thread). */
  near(lat: number, lon: number, radiusM: number, max: number): Array<{ venue: Venue; distance: number }>;
  get(index: number): Venue | undefined;
  /**
   * Record indexes of at least every venue within radiusM of a point (a box around it, a little
   * wider), in no order, no record read: for callers that skip most venues by index.
   */
  boxIndexes?(lat: number, lon: number, radiusM: number): number[];
  /** The record index of a venue id, for lookups by id. */
  indexOf(id: string): number | undefined;
  close(): void;
}

/** Decoded records kept per thread: detection traffic revisits the same streets. Bounded by DWELL_CACHE_MB. */
const CACHE_MAX = cacheEntries('venueRecords');

const CHUNK = 1 << 28; // fs reads are capped at 2 GiB a call; 256 MiB steps keep it simple

export async function loadStore(root: string): Promise<StoreHandle> {
  const { id, dir } = await resolveVersion(root);
  const meta = await readMeta(dir);
  const fh = await openFile(join(dir, INDEX), 'r');
  try {
    const { size } = await fh.stat();
    if (size !== meta.index_bytes) throw new Error(`${join(dir, INDEX)}: expected ${meta.index_bytes} bytes (meta.json), found ${size}`);
    const index = new SharedArrayBuffer(size);
    const bytes = new Uint8Array(index);
    for (let off = 0; off < size;) {
      const { bytesRead } = await fh.read(bytes, off, Math.min(CHUNK, size - off), off);
      if (bytesRead === 0) throw new Error(`${join(dir, INDEX)}: ended at byte ${off}, expected ${size}`);
      off += bytesRead;
    }
    const h: StoreHandle = { id, dir, index, count: meta.count, counted: meta.counted ?? NaN };
    openIndex(index); // fail here, on the main thread, rather than in every worker
    return h;
  } finally {
    await fh.close();
  }
}

class OpenStore implements VenueStore {
  readonly id: string;
  readonly count: number;
  readonly counted: number;
  private readonly index: Flatbush;
  private readonly db: Records;
  private readonly cache = new Map<number, Venue>();

  constructor(h: StoreHandle) {
    this.id = h.id;
    this.count = h.count;
    this.counted = h.counted;
    this.index = openIndex(h.index);
    this.db = openRecords(join(h.dir, RECORDS), true);
  }

  near(lat: number, lon: number, radiusM: number, max: number): Array<{ venue: Venue; distance: number }> {
    const out: Array<{ venue: Venue; distance: number }> = [];
    // A few extra candidates: Float32 rounding in the index can swap near-equal neighbours.
    for (const i of nearIds(this.index, lat, lon, radiusM, max + 4)) {
      const venue = this.record(i);
      if (!venue) continue;
      const distance = haversineM(lat, lon, venue.lat, venue.lon);
      if (distance <= radiusM) out.push({ venue, distance });
    }
    out.sort((a, b) => a.distance - b.distance);
    if (out.length > max) out.length = max;
    return out;
  }

  boxIndexes(lat: number, lon: number, radiusM: number): number[] {
    return boxIds(this.index, lat, lon, radiusM);
  }

  get(index: number): Venue | undefined {
    return Number.isInteger(index) && index >= 0 && index < this.count ? this.record(index) : undefined;
  }

  /** Cached records are frozen: they are shared by every caller in this thread. */
  private record(i: number): Venue | undefined {
    let v = this.cache.get(i);
    if (v) return v;
    v = this.db.venues.get(i);
    if (!v) return undefined;
    if (v.address) Object.freeze(v.address);
    Object.freeze(v);
    if (this.cache.size >= CACHE_MAX) this.cache.clear(); // O(1) bound; an LRU costs more than it saves here
    this.cache.set(i, v);
    return v;
  }

  indexOf(id: string): number | undefined {
    return this.db.ids.get(id);
  }

  close(): void {
    void this.db.env.close();
  }
}

/**
 * Positions of up to `n` venues spread over the store (records are in Hilbert order, so evenly
 * spaced indexes are spread in space): where the workers' warm-up requests go (server/warm-up.ts).
 * With the venue's name, after which some of the warm-up's networks are called, as shops' are.
 */
export function samplePositions(h: StoreHandle, n: number): Array<{ lat: number; lon: number; name: string }> {
  const db = openRecords(join(h.dir, RECORDS), true);
  try {
    const out: Array<{ lat: number; lon: number; name: string }> = [];
    const step = Math.max(1, h.count / n);
    for (let i = step / 2; i < h.count && out.length < n; i += step) {
      const v = db.venues.get(Math.floor(i));
      if (v) out.push({ lat: v.lat, lon: v.lon, name: v.name });
    }
    return out;
  } finally {
    void db.env.close();
  }
}

let cached: OpenStore | undefined;

/** Any thread: the store for a handle, cached per id; opening a new id closes the previous one. */
export function openStore(h: StoreHandle): VenueStore {
  if (cached?.id === h.id) return cached;
  const next = new OpenStore(h);
  cached?.close();
  cached = next;
  return next;
}

/**
 * Polls CURRENT and calls onSwap with a fully loaded handle when it changes; a load that fails
 * is logged and retried on the next tick, and the old store keeps serving meanwhile.
 */
/** Answers the stop, whose `ready` resolves once the version in place is read: a swap after it is reported. */
export function watchStore(root: string, onSwap: (h: StoreHandle) => void, intervalMs = 2000): (() => void) & { ready: Promise<void> } {
  let seen: string | undefined;
  let busy = false;
  let stopped = false;
  const ready = readCurrent(root).then((v) => { seen = v; }, () => undefined);
  const tick = async (): Promise<void> => {
    if (busy || stopped) return;
    busy = true;
    try {
      await ready;
      const v = await readCurrent(root);
      if (v === undefined || v === seen) return;
      const h = await loadStore(root);
      if (stopped) return;
      seen = h.id;
      log.info('venue store swapped', { root, version: h.id, count: h.count });
      onSwap(h);
    } catch (err) {
      log.warn('venue store swap failed; keeping the current one', { root, error: (err as Error).message });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return Object.assign(() => { stopped = true; clearInterval(timer); }, { ready });
}
