/**
 * The registry as a detection worker reads it: a per-thread, per-app index in memory, so a scan
 * entry is one Map lookup (no store read per entry). Each task reads the app's version counter
 * (one read) and rebuilds the index when it moved, as geofences/worker.ts does for fences.
 * Rebuilding reads the app's whole registry (about 0.1 s at 100,000 beacons), once per change.
 */
import type { BeaconView, RegisteredBeacon, StoredBeacon } from '../schemas/beacon.js';
import { beaconKey } from '../schemas/beacon.js';
import { LmdbBeaconStore } from './lmdb-store.js';

class Index implements BeaconView {
  private readonly byKey = new Map<string, RegisteredBeacon>();
  private readonly perVenue = new Map<string, number>();
  constructor(records: Iterable<StoredBeacon>) {
    for (const r of records) {
      this.byKey.set(beaconKey(r.uuid, r.major, r.minor), { venueId: r.venue_id, lat: r.location?.lat ?? NaN, lon: r.location?.long ?? NaN });
      if (r.venue_id !== null) this.perVenue.set(r.venue_id, (this.perVenue.get(r.venue_id) ?? 0) + 1);
    }
  }
  get size(): number { return this.byKey.size; }
  find(key: string): RegisteredBeacon | undefined { return this.byKey.get(key); }
  atVenue(venueId: string): number { return this.perVenue.get(venueId) ?? 0; }
}

const stores = new Map<string, LmdbBeaconStore>();
const indexes = new Map<string, { version: number; index: Index }>();

/** The app's registry as of the latest commit; undefined when it has no beacon. */
export function beaconView(dataDir: string, app: string): BeaconView | undefined {
  let store = stores.get(dataDir);
  if (!store) stores.set(dataDir, (store = new LmdbBeaconStore(dataDir)));
  store.renew();
  const version = store.version(app);
  const key = `${dataDir}\u0000${app}`;
  if (version === 0) { indexes.delete(key); return undefined; }
  let c = indexes.get(key);
  if (!c || c.version !== version) indexes.set(key, (c = { version, index: new Index(store.all(app)) }));
  return c.index.size ? c.index : undefined;
}

/** An index over given records, for tests and the offline harness (no store). */
export const viewOf = (records: Iterable<StoredBeacon>): BeaconView => new Index(records);
