/**
 * The embedded engine (server/state.ts): one process owns the data directory, every kind in LMDB
 * under it: apps.mdb (AppRegistry), users (history, learned values), geofences.mdb (fences and
 * presence, with their expiry sweep), beacons, the outbox, the replay cache, recent detections.
 */
import type { Config } from '../config.js';
import { AppRegistry } from '../apps/registry.js';
import { Outbox } from '../delivery/outbox.js';
import { openGeofenceService } from '../geofences/service.js';
import { LmdbBeaconStore } from '../beacons/lmdb-store.js';
import { openRecent } from '../recent/lmdb.js';
import { embeddedPrivacy } from '../privacy/engine.js';
import { embeddedStepper } from '../feedback/record-step.js';
import { backupMetrics } from '../ops/last-backup.js';
import { ReplayCache } from './replay-cache.js';
import { recentLimits, type NodeState, type StateDeps } from './node-state.js';

export async function openEmbeddedState(config: Config, deps: StateDeps): Promise<NodeState> {
  const dir = config.dataDir;
  const apps = await AppRegistry.embedded(dir, { secretGraceS: config.secretGraceS, allowPrivate: config.postbackAllowPrivate, keyring: deps.keyring });
  const outbox = new Outbox(dir);
  const replays = new ReplayCache(dir);
  const geofences = openGeofenceService(dir);
  const beacons = new LmdbBeaconStore(dir);
  const recent = openRecent(dir, recentLimits(config));
  const feedback = embeddedStepper(dir, deps.versions);
  backupMetrics(deps.metrics, dir); // `dwell backup` of this directory
  return {
    apps, outbox, replays, fences: geofences.store, beacons, recent, feedback,
    privacy: embeddedPrivacy(dir, geofences.store),
    health: () => undefined,
    async close() {
      await replays.close();
      feedback.close();
      await recent.close();
      await geofences.close();
      await beacons.close();
      await outbox.close();
      await apps.close();
    },
  };
}
