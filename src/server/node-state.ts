/**
 * The state the HTTP thread uses, whichever engine runs, built in one place (`nodeState`) from the
 * engine's state kit (state/types.ts StateKit, opened by state.ts `openStateKit`): the app
 * registry over the kit's apps, the replay check over its claims, readiness from its health.
 * Privacy (erase, export, app deletion, retention) and feedback are built here on the kit too,
 * one code path for both engines. What the kit does not hold yet (the trigger queue, recent
 * detections, beacons, place triggers, and the geofence routes' handle) comes from the engine's
 * `parts`.
 */
import type { Config } from '../config.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Metrics } from '../http/metrics.js';
import type { Versions } from '../learned/cache.js';
import { AppRegistry } from '../apps/registry.js';
import type { AppVault } from '../apps/vault.js';
import type { AppsState, StateKit } from '../state/types.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceApi } from '../geofences/routes.js';
import type { BeaconStore } from '../beacons/store.js';
import type { RecentDetections, RecentLimits } from '../recent/types.js';
import { kitPrivacy, type PrivacyEngine } from '../privacy/engine.js';
import { kitStepper, type RecordStepper } from '../feedback/record-step.js';
import type { Replays } from './replays.js';
import type { PlaceTriggerApi } from '../place-triggers/records.js';
import type { VenueSource } from '../venues/venue-source.js';
import { replaysOf } from './replay-state.js';
import { closeAll } from './close-all.js';

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
  /** Place triggers (contract §11). */
  placeTriggers: PlaceTriggerApi;
  /** The explorer's recent detections. */
  recent: RecentDetections;
  /** What erase, export, app deletion and retention reach of a user's records. */
  privacy: PrivacyEngine;
  /** Feedback's read-modify-write of a user's record (contract §10). */
  feedback: RecordStepper;
  /** Where this node's venue store comes from (DWELL_VENUES, or the cluster's published snapshots); closed by the caller. */
  openVenues(): Promise<VenueSource>;
  /** Whether the engine answers (readiness); undefined when it is always there (embedded). */
  health(): 'up' | 'down' | undefined;
  close(): Promise<void>;
}

export interface StateDeps { keyring: Keyring; metrics: Metrics; versions: Versions }

/** What an engine opens on its kit for the HTTP thread, beside what `nodeState` builds from the kit itself. */
export interface EngineParts extends Pick<NodeState, 'outbox' | 'fences' | 'beacons' | 'placeTriggers' | 'recent' | 'openVenues'> {
  /** The kit's apps as the registry keeps them (a cluster node's with their copy for the delivery worker), closed by the registry. */
  apps: AppsState;
  /** Which key the registry seals with (secrets/unlock.ts has checked it). */
  vault: AppVault;
  /** Closes what the parts opened (not `apps`, not the kit). */
  close(): Promise<void>;
}

/** An engine's kit, and how the HTTP thread's parts open on it. */
export interface Engine { kit: StateKit; parts(config: Config, deps: StateDeps): Promise<EngineParts> }

export async function nodeState(engine: Engine, config: Config, deps: StateDeps): Promise<NodeState> {
  const { kit } = engine;
  let parts: EngineParts | undefined;
  let apps: AppRegistry;
  try {
    parts = await engine.parts(config, deps);
    apps = await AppRegistry.open(parts.apps, { secretGraceS: config.secretGraceS, allowPrivate: config.postbackAllowPrivate, keyring: deps.keyring }, parts.vault);
  } catch (err) {
    // A refused key ends the process, and so does a store that cannot open: nothing opened so
    // far may hold the data directory (or the cluster) open meanwhile.
    await closeAll('state (not opened)', [['parts', () => parts?.close()], ['kit', () => kit.close()]]).catch(() => undefined);
    throw err;
  }
  const { outbox, fences, beacons, placeTriggers, recent, openVenues } = parts;
  return {
    apps, outbox, fences, beacons, placeTriggers, recent, openVenues,
    privacy: kitPrivacy(kit),
    feedback: kitStepper(kit),
    replays: replaysOf(kit.replay),
    health: () => kit.health(),
    close: () => closeAll('state', [['parts', () => parts.close()], ['apps', () => apps.close()], ['kit', () => kit.close()]]),
  };
}

/** The explorer's limits on recent detections, from config. */
export function recentLimits(config: Config): RecentLimits {
  return { count: config.recentCount, maxAgeMs: config.recentDays * 86_400_000, optOut: new Set(config.recentOptOut) };
}
