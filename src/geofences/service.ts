/** The geofence side of the server in one handle: the store, its sweep, and a close for the drain. */
import { ExpirySweeper, type SweepOptions } from './expiry.js';
import { GeofenceStore, type StoreOptions } from './store.js';
import { liveIndex } from './worker.js';

/** `near` searches read the thread's index of the app, kept up to date as a detection worker's is. */
export const nearIndex = (store: GeofenceStore, app: string) => liveIndex(store, `near\u0000${app}`, app);

export interface GeofenceService {
  store: GeofenceStore;
  sweeper: ExpirySweeper;
  close(): Promise<void>;
}

export function openGeofenceService(dataDir: string, opts: StoreOptions & SweepOptions = {}): GeofenceService {
  const store = new GeofenceStore(dataDir, { nearIndex, ...opts });
  const sweeper = new ExpirySweeper(store, opts).start();
  return {
    store,
    sweeper,
    async close() {
      await sweeper.stop();
      await store.close();
    },
  };
}
