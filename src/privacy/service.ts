/** The privacy side of the server in one handle: its routes, the retention sweep, and a close for the drain. */
import type { Config } from '../config.js';
import type { AppRegistry } from '../apps/registry.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceStore } from '../geofences/store.js';
import type { BeaconStore } from '../beacons/store.js';
import type { Metrics } from '../http/metrics.js';
import { openPrivacyStores } from './stores.js';
import { RetentionSweeper, type SweepCounts } from './retention.js';
import { startSweepThread } from './sweep-thread.js';
import { privacyAdminRoutes, privacyRoutes } from './routes.js';
import { DAY_MS, slotFor } from '../users/touch.js';
import type { RecentDetections } from '../recent/types.js';
import { log } from '../log.js';
import { sweepClusterUsers, type ClusterPrivacy } from './cluster.js';

export function startPrivacy(config: Config, deps: { apps: AppRegistry; outbox: TriggerQueue; geofences: GeofenceStore; beacons?: BeaconStore; metrics: Metrics; recent?: RecentDetections; cluster?: ClusterPrivacy; busy?: () => boolean }) {
  const userRetentionMs = config.userRetentionDays * DAY_MS;
  const stores = { ...openPrivacyStores(config.dataDir, deps.geofences, deps.outbox, slotFor(userRetentionMs)), recent: deps.recent, cluster: deps.cluster, beacons: deps.beacons };
  // Cluster mode: users are swept by the lease holder (cluster.ts), every quarter of the retention, at most once a minute.
  const clusterTimer = deps.cluster && userRetentionMs > 0 ? setInterval(() => {
    sweepClusterUsers(deps.cluster!, userRetentionMs).then((n) => { if (n) log.info('retention: users removed', { users: n }); },
      (err) => log.warn('cluster retention sweep skipped', { error: String((err as Error)?.message ?? err) }));
  }, Math.max(1000, Math.min(60_000, userRetentionMs / 4))) : null;
  clusterTimer?.unref();
  const retention = {
    userRetentionMs, deadRetentionMs: config.deadRetentionDays * DAY_MS,
    // A sweep at least every second, more often when retention is that short (tests, trials).
    intervalMs: Math.max(50, Math.min(1000, slotFor(userRetentionMs) / 4)),
  };
  const sweeping = retention.userRetentionMs > 0 || retention.deadRetentionMs > 0;
  // Embedded store: the sweep's own thread (sweep-thread.ts). Cluster mode keeps it on this thread:
  // there users are the lease holder's (above) and dead triggers are JetStream purges, not batches
  // holding a local write lock.
  const thread = sweeping && !deps.cluster
    ? startSweepThread({ dataDir: config.dataDir, slotMs: slotFor(userRetentionMs), logLevel: config.logLevel, ...retention }, deps.metrics)
    : null;
  const sweeper = thread ? null : new RetentionSweeper(stores, { ...retention, metrics: deps.metrics, busy: deps.busy }).start();
  return {
    routes: privacyRoutes(stores),
    adminRoutes: privacyAdminRoutes(deps.apps, stores),
    /** What the retention sweep removed since start. */
    removed: (): SweepCounts => thread?.removed ?? sweeper!.removed,
    /** Around every request (app.ts): the sweep's thread keeps to the moments none is in flight. */
    enter: () => thread?.enter(),
    leave: () => thread?.leave(),
    async close() {
      if (clusterTimer) clearInterval(clusterTimer);
      await (thread ?? sweeper!).stop();
      await stores.users.close();
    },
  };
}
