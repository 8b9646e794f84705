/**
 * The embedded GeofenceStore as the state interface's FencesState (state/types.ts), for the one
 * contract suite both implementations pass (test/state/). One process owns the store, so a watch
 * is the changes made through this object, delivered at once.
 */
import type { StoredGeofence } from '../schemas/geofence.js';
import type { Change, FencesState } from '../state/types.js';
import type { GeofenceStore } from './store.js';

export function lmdbFences(store: GeofenceStore): FencesState {
  const watchers = new Set<Change<StoredGeofence>>();
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
