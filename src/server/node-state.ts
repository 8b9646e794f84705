/** The kit of state the HTTP thread uses, whichever engine runs (opened by state.ts). */
import type { Config } from '../config.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Metrics } from '../http/metrics.js';
import type { Versions } from '../learned/cache.js';
import type { AppRegistry } from '../apps/registry.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceApi } from '../geofences/routes.js';
import type { BeaconStore } from '../beacons/store.js';
import type { RecentDetections, RecentLimits } from '../recent/types.js';
import type { PrivacyEngine } from '../privacy/engine.js';
import type { RecordStepper } from '../feedback/record-step.js';
import type { Replays } from './replays.js';

export interface NodeState {
  apps: AppRegistry;
  /** Signatures already accepted (contract §1). */
  replays: Replays;
  /** Triggers pending and dead (the HTTP thread's handle: publish, list, purge). */
  outbox: TriggerQueue;
  /** The geofence routes' and the explorer's store. */
  fences: GeofenceApi;
  /** The beacon registry (contract §9). */
  beacons: BeaconStore;
  /** The explorer's recent detections. */
  recent: RecentDetections;
  /** What erase, export, app deletion and retention reach of a user's records. */
  privacy: PrivacyEngine;
  /** Feedback's read-modify-write of a user's record (contract §10). */
  feedback: RecordStepper;
  /** Whether the engine answers (readiness); undefined when it is always there (embedded). */
  health(): 'up' | 'down' | undefined;
  close(): Promise<void>;
}

export interface StateDeps { keyring: Keyring; metrics: Metrics; versions: Versions }

/** The explorer's limits on recent detections, from config. */
export function recentLimits(config: Config): RecentLimits {
  return { count: config.recentCount, maxAgeMs: config.recentDays * 86_400_000, optOut: new Set(config.recentOptOut) };
}
