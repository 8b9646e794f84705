/**
 * The app's fences inside a detection worker, for its geofence events (presence.ts, events.ts).
 *
 * Why here and not in the main thread: presence is part of the user's record, read and committed
 * by the worker with the visits, and the workers already hold the request's fixes. Worker threads
 * cannot share the main thread's memory, so
 * each worker keeps its own per-app FenceIndex, built from LMDB on first use and then brought up
 * to date from the store's per-app change log (version counter + [app, seq] → id): one LMDB read
 * per request when nothing changed, and only the changed fences re-read when something did.
 * A worker further behind than the trimmed log, or behind by more than half its fences,
 * rebuilds from a scan. Memory: one index per app per worker (about 160 bytes of typed arrays a
 * circle at a million fences, 45 of them the cell entries that test a circle without its record).
 */
import { shapeOf } from './geometry.js';
import { FenceIndex } from './fence-index.js';
import type { FenceView } from './events.js';
import { expiresMs, GeofenceStore } from './store.js';

interface Cached { index: FenceIndex; seq: number }

const stores = new Map<string, GeofenceStore>();
const caches = new Map<string, Cached>();

function storeFor(dataDir: string): GeofenceStore {
  let s = stores.get(dataDir);
  if (!s) stores.set(dataDir, (s = new GeofenceStore(dataDir)));
  return s;
}

/** The app's index, current as of the store's latest commit. */
export function liveIndex(store: GeofenceStore, cacheKey: string, app: string): FenceIndex {
  const version = store.version(app);
  const c = caches.get(cacheKey);
  if (c && c.seq === version) return c.index;
  const delta = c ? store.changesSince(app, c.seq) : null;
  if (c && delta && delta.ids.length <= Math.max(10_000, c.index.size / 2)) {
    for (const id of delta.ids) {
      const rec = store.raw(app, id);
      if (rec) c.index.upsert(id, shapeOf(rec.location), expiresMs(rec));
      else c.index.remove(id);
    }
    c.seq = delta.seq;
    return c.index;
  }
  const index = new FenceIndex();
  for (const rec of store.scan(app)) index.add(rec.id, shapeOf(rec.location), expiresMs(rec));
  index.rebuild();
  caches.set(cacheKey, { index, seq: version });
  return index;
}

/**
 * Drops the indexes of apps that hold no fence any more (a deleted app's fences are deleted with
 * it, and no request for that app comes to refresh its index): checked once a minute, one LMDB
 * read an index that changed since it was built. Answers how many went.
 */
export function dropEmptyIndexes(): number {
  let dropped = 0;
  for (const [key, c] of caches) {
    const [dataDir, app] = key.split('\u0000');
    const store = stores.get(dataDir);
    if (!store) continue;
    store.root.resetReadTxn();
    if (store.version(app) !== c.seq && holdsNone(store, app)) {
      caches.delete(key);
      dropped++;
    }
  }
  return dropped;
}
setInterval(dropEmptyIndexes, 60_000).unref();

function holdsNone(store: GeofenceStore, app: string): boolean {
  const it = store.scan(app)[Symbol.iterator]();
  const none = it.next().done === true;
  it.return?.(); // the cursor goes back at once
  return none;
}

/** The app's fences as of the latest commit (a worker's read snapshot is renewed first); undefined when it has none. */
export function fenceView(dataDir: string, app: string): FenceView | undefined {
  const store = storeFor(dataDir);
  // A worker's read snapshot may predate the main thread's latest commit.
  store.root.resetReadTxn();
  if (store.version(app) === 0) return undefined;
  const key = `${dataDir}\u0000${app}`;
  const index = liveIndex(store, key, app);
  if (index.size > 0) return { index, info: (id: string) => store.raw(app, id) };
  caches.delete(key); // nothing to keep: the next request's scan of no fences costs less than the index
  return undefined;
}
