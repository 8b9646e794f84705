/** The beacon side of the server in one handle: the registry's store, its routes, and a close for the drain. */
import { openStore, type StoreHandle } from '../venues/store.js';
import { LmdbBeaconStore } from './lmdb-store.js';
import { ClusterBeaconStore } from './cluster-store.js';
import type { BeaconsState } from '../state/nats/beacons.js';
import { beaconRoutes, IMPORT_SENT_BYTES, type BeaconHandler } from './routes.js';
import type { BeaconStore } from './store.js';

export interface BeaconService {
  store: BeaconStore;
  /** [method, pattern, handler, body limit as sent (undefined: the default)]. */
  routes: Array<[string, string, BeaconHandler, number | undefined]>;
  close(): Promise<void>;
}

/** `venues`: the served store's handle, null while it loads; `cluster`: the cluster's bucket (contract §8), else LMDB in `dataDir`. */
export function openBeaconService(dataDir: string, venues: () => StoreHandle | null, cluster?: BeaconsState): BeaconService {
  const store = cluster ? new ClusterBeaconStore(cluster) : new LmdbBeaconStore(dataDir);
  const venueKnown = () => {
    const h = venues();
    if (!h) return null;
    const v = openStore(h);
    return (id: string) => v.indexOf(id) !== undefined;
  };
  const routes = beaconRoutes({ store, venueKnown }).map(([m, p, h]): [string, string, BeaconHandler, number | undefined] =>
    [m, p, h, p.endsWith('/import') ? IMPORT_SENT_BYTES : undefined]);
  return { store, routes, close: () => store.close() };
}
