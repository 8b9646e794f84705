/**
 * What the privacy operations (contract §7) reach, by kind, engine-free: the shell hands in the
 * engine's implementation (server/state.ts: embedded.ts or cluster.ts).
 */
import type { Database, RootDatabase } from 'lmdb';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { Presence } from '../geofences/events.js';
import type { GeofenceStore } from '../geofences/store.js';
import type { BeaconStore } from '../beacons/store.js';
import type { UserRecord } from '../users/records.js';
import type { RecentDetections } from '../recent/types.js';

/** The counts of erase.ts's Erased that a user's records answer for. */
export interface ErasedFromRecord { user_records: number; visit_history_places: number; past_stays: number; open_stays: number; geofence_presence: number }

/** What an app's deletion removed of its users' records, learned values and geofences. */
export interface DeletedRecords { users: number; learned: number; geofences: number; geofence_presence: number }

/** A user's records (history, stays, presence), learned values and geofences, in the engine in use. */
export interface UserRecords {
  read(app: string, user: string): Promise<{ record: UserRecord | undefined; presence: Presence | undefined }>;
  /** Removes one user's record and presence; adds what they held to `out`. */
  erase(app: string, user: string, out: ErasedFromRecord): Promise<void>;
  /** Everything stored for an app apart from triggers, recent detections and beacons. */
  deleteApp(app: string): Promise<DeletedRecords>;
}

export interface PrivacyKinds {
  records: UserRecords;
  /** The trigger queue, either engine's: its per-user and per-app operations (state/outbox-types.ts). */
  outbox: TriggerQueue;
  /** The explorer's recent detections (recent/), when the server keeps them. */
  recent?: RecentDetections;
  /** The beacon registry (beacons/store.ts), when the server runs one. */
  beacons?: BeaconStore;
}

/** The embedded engine's environments: the users environment, geofence presence, and the geofence store. */
export interface LocalStores {
  users: RootDatabase;
  presence: Database<Presence, [string, string]>;
  geofences: GeofenceStore;
}
