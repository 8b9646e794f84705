/** The beacon side of the server in one handle: its routes over the registry's store (either engine's, server/state.ts). */
import { openStore, type StoreHandle } from '../venues/store.js';
import { beaconRoutes, IMPORT_SENT_BYTES } from './routes.js';
import type { AppHandler } from '../http/app-route.js';
import type { BeaconStore } from './store.js';

export interface BeaconService {
  /** [method, pattern, handler, body limit as sent (undefined: the default)]. */
  routes: Array<[string, string, AppHandler, number | undefined]>;
}

/** `venues`: the served store's handle, null while it loads. */
export function openBeaconService(store: BeaconStore, venues: () => StoreHandle | null): BeaconService {
  const venueKnown = () => {
    const h = venues();
    if (!h) return null;
    const v = openStore(h);
    return (id: string) => v.indexOf(id) !== undefined;
  };
  const routes = beaconRoutes({ store, venueKnown }).map(([m, p, h]): [string, string, AppHandler, number | undefined] =>
    [m, p, h, p.endsWith('/import') ? IMPORT_SENT_BYTES : undefined]);
  return { routes };
}
