/** The privacy side of the server in one handle: its routes, the retention sweep, and a close for the drain. */
import type { Config } from '../config.js';
import type { AppRegistry } from '../apps/registry.js';
import type { Outbox } from '../delivery/outbox.js';
import type { GeofenceStore } from '../geofences/store.js';
import type { BeaconStore } from '../beacons/store.js';
import type { Metrics } from '../http/metrics.js';
import { openPrivacyStores } from './stores.js';
import { RetentionSweeper } from './retention.js';
import { privacyAdminRoutes, privacyRoutes } from './routes.js';
import { DAY_MS, slotFor } from '../users/touch.js';

export function startPrivacy(config: Config, deps: { apps: AppRegistry; outbox: Outbox; geofences: GeofenceStore; beacons?: BeaconStore; metrics: Metrics }) {
  const userRetentionMs = config.userRetentionDays * DAY_MS;
  const stores = openPrivacyStores(config.dataDir, deps.geofences, deps.outbox, slotFor(userRetentionMs));
  stores.beacons = deps.beacons;
  const sweeper = new RetentionSweeper(stores, {
    userRetentionMs, deadRetentionMs: config.deadRetentionDays * DAY_MS, metrics: deps.metrics,
    // A sweep at least every second, more often when retention is that short (tests, trials).
    intervalMs: Math.max(50, Math.min(1000, slotFor(userRetentionMs) / 4)),
  }).start();
  return {
    routes: privacyRoutes(stores),
    adminRoutes: privacyAdminRoutes(deps.apps, stores),
    sweeper,
    async close() {
      await sweeper.stop();
      await stores.users.close();
    },
  };
}
