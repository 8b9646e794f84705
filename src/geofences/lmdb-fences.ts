/**
 * The embedded GeofenceStore as the state interface's FencesState (state/types.ts), the fences of
 * the embedded kit (server/kit-lmdb.ts). One process owns the store, so a watch is told the
 * changes made through any opening of the directory in this process, as each commits. (Detection
 * threads do not watch: they read the store's change log, geofences/worker.ts.)
 */
import path from 'node:path';
import type { StoredGeofence } from '../schemas/geofence.js';
import type { Change, FencesState } from '../state/types.js';
import type { GeofenceStore } from './store.js';

/** Watchers by data directory (kept while the process runs): the openings of one process are the only writers there are. */
const watching = new Map<string, Set<Change<StoredGeofence>>>();

export function lmdbFences(store: GeofenceStore, dataDir: string): FencesState {
  const where = path.resolve(dataDir);
  const watchers = watching.get(where) ?? new Set<Change<StoredGeofence>>();
  watching.set(where, watchers);
  const tell = (rec: StoredGeofence, gone = false) => { for (const w of watchers) w(`${rec.app_key}.${rec.id}`, gone ? undefined : rec); };
  return {
    get: async (app, id) => store.get(app, id),
    list: async (app, q) => store.list(app, q),
    async put(rec) { await store.putRecord(rec); tell(rec); },
    async update(app, id, fn) { const next = await store.modify(app, id, fn); if (next) tell(next); return next; },
    async remove(app, id) {
      const rec = store.get(app, id);
      const gone = await store.delete(app, id);
      if (gone && rec) tell(rec, true);
      return gone;
    },
    scan: async (app) => [...store.scan(app)],
    watch(fn) {
      watchers.add(fn);
      // Told in this process as each write commits: never behind.
      return { ready: Promise.resolve(), stop: () => { watchers.delete(fn); }, caughtUp: async () => true };
    },
  };
}
