/** The privacy side of the server in one handle: its routes, the retention sweep, and a close for the drain. */
import type { Config } from '../config.js';
import type { AppRegistry } from '../apps/registry.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { BeaconStore } from '../beacons/store.js';
import type { Metrics } from '../http/metrics.js';
import type { SweepCounts } from './retention.js';
import { privacyAdminRoutes, privacyRoutes } from './routes.js';
import { DAY_MS, slotFor } from '../users/touch.js';
import type { RecentDetections } from '../recent/types.js';
import type { PrivacyEngine } from './engine.js';
import type { PrivacyKinds } from './kinds.js';
import { removeAfterOwnRequests } from './delete-app.js';
import { log } from '../log.js';

export function startPrivacy(config: Config, deps: { apps: AppRegistry; outbox: TriggerQueue; engine: PrivacyEngine; beacons?: BeaconStore; placeTriggers?: PrivacyKinds['placeTriggers']; metrics: Metrics; recent?: RecentDetections; busy?: () => boolean }) {
  const userRetentionMs = config.userRetentionDays * DAY_MS;
  const retention = {
    userRetentionMs, deadRetentionMs: config.deadRetentionDays * DAY_MS, slotMs: slotFor(userRetentionMs),
    // A sweep at least every second, more often when retention is that short (tests, trials).
    intervalMs: Math.max(50, Math.min(1000, slotFor(userRetentionMs) / 4)),
  };
  const run = deps.engine({ outbox: deps.outbox, retention, metrics: deps.metrics, busy: deps.busy, logLevel: config.logLevel });
  const kinds = { records: run.records, outbox: deps.outbox, recent: deps.recent, beacons: deps.beacons, placeTriggers: deps.placeTriggers };
  deps.apps.onDeletedElsewhere((app) => {
    removeAfterOwnRequests(deps.apps, kinds, app).then(
      (removed) => log.info('an app deleted through another node: what this node\'s requests of it stored meanwhile is removed', { app_key: app, ...removed }),
      (err) => log.error('an app deleted through another node: removing what this node\'s requests stored failed; deleting the app again removes it', { app_key: app, error: String((err as Error)?.message ?? err) }),
    );
  });
  return {
    routes: privacyRoutes(kinds, deps.apps.inFlight),
    adminRoutes: privacyAdminRoutes(deps.apps, kinds),
    /** What the retention sweep removed since start. */
    removed: (): SweepCounts => run.removed(),
    /** Around every request (app.ts): the sweep's thread keeps to the moments none is in flight. */
    enter: () => run.enter(),
    leave: () => run.leave(),
    close: () => run.close(),
  };
}
