/**
 * Geofence events inside a detection worker.
 *
 * Why here and not in the main thread: presence is a read-modify-write with a synchronous LMDB
 * commit when something changes, which must not stall the HTTP event loop, and the workers
 * already hold the request's fixes. Worker threads cannot share the main thread's memory, so
 * each worker keeps its own per-app FenceIndex, built from LMDB on first use and then brought up
 * to date from the store's per-app change log (version counter + [app, seq] → id): one LMDB read
 * per request when nothing changed, and only the changed fences re-read when something did.
 * A worker further behind than the trimmed log, or behind by more than half its fences,
 * rebuilds from a scan. Memory: one index per app per worker (about 160 bytes of typed arrays a
 * circle at a million fences, 45 of them the cell entries that test a circle without its record).
 */
import type { GeofenceEvent } from '../schemas/visit.js';
import { shapeOf } from './geometry.js';
import { FenceIndex } from './fence-index.js';
import { evaluate, evaluateAlone, type Evaluation, type FenceView, type Fix, type Presence } from './events.js';
import { withPresence } from './presence.js';
import { expiresMs, GeofenceStore } from './store.js';
import { clock } from '../time/clock.js';

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

/** The app's fences as of the latest commit (a worker's read snapshot is renewed first); undefined when it has none. */
export function fenceView(dataDir: string, app: string): FenceView | undefined {
  const store = storeFor(dataDir);
  // A worker's read snapshot may predate the main thread's latest commit.
  store.root.resetReadTxn();
  if (store.version(app) === 0) return undefined;
  const index = liveIndex(store, `${dataDir}\u0000${app}`, app);
  return index.size === 0 ? undefined : { index, info: (id: string) => store.raw(app, id) };
}

/** One user's presence read, evaluated and (when it changed) written in the geofence environment (presence.ts). */
export function presenceStep(dataDir: string, app: string, user: string, run: (p: Presence) => Evaluation): Evaluation {
  return withPresence(storeFor(dataDir), app, user, run);
}

/**
 * Entry and exit events of one user's fixes, in time order. With no user key nothing is kept: the
 * crossings within the request alone (events.ts evaluateAlone; no history, as for visits).
 */
export function geofenceEvents(dataDir: string, appKey: string, userKey: string | null,
  fixesOrLater: readonly Fix[] | (() => readonly Fix[]), now = clock.now()): GeofenceEvent[] {
  const view = fenceView(dataDir, appKey);
  if (!view) return [];
  // Most apps have no fences: their requests' fixes are not gathered (parsed, sorted) at all.
  const fixes = typeof fixesOrLater === 'function' ? fixesOrLater() : fixesOrLater;
  if (fixes.length === 0) return [];
  if (userKey === null) return evaluateAlone(view, fixes, now);
  return presenceStep(dataDir, appKey, userKey, (p) => evaluate(view, p, fixes, now)).events;
}
