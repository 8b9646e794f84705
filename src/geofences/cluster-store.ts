/**
 * The geofence routes' store in cluster mode (contract §8): the same records and answers as
 * GeofenceStore, kept in the cluster's fence state, so a fence written through any node is read
 * by every other at once and raises events on every node (mirror.ts).
 */
import type { FencesState } from '../state/types.js';
import type { GeofenceInput, GeofencePatch, StoredGeofence } from '../schemas/geofence.js';
import type { GeofenceApi } from './routes.js';
import { newGeofence, patchedGeofence } from './store.js';
import { clock } from '../time/clock.js';

export function clusterGeofences(fences: FencesState, now: () => number = clock.now): GeofenceApi {
  return {
    get: (app, id) => fences.get(app, id),
    list: (app, q) => fences.list(app, q),
    async create(app: string, input: GeofenceInput): Promise<StoredGeofence> {
      const rec = newGeofence(app, input, now());
      await fences.put(rec);
      return rec;
    },
    update: (app: string, id: string, patch: GeofencePatch) => fences.update(app, id, (old) => patchedGeofence(old, patch, now())),
    delete: (app: string, id: string) => fences.remove(app, id),
  };
}
