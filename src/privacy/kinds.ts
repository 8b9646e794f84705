/**
 * What the privacy operations (contract §7) reach, by kind, engine-free: a user's records through
 * the state kit (records.ts), the other kinds through their own per-user and per-app operations.
 */
import type { RootDatabase } from 'lmdb';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceStore } from '../geofences/store.js';
import type { BeaconStore } from '../beacons/store.js';
import type { UserRecord } from '../users/records.js';
import type { RecentDetections } from '../recent/types.js';

/** The counts of erase.ts's Erased that a user's records answer for. */
export interface ErasedFromRecord { user_records: number; visit_history_places: number; past_stays: number; open_stays: number; geofence_presence: number }

/** What an app's deletion removed of its users' records, learned values and geofences. */
export interface DeletedRecords { users: number; learned: number; geofences: number; geofence_presence: number }

/**
 * A user's records (history, stays, presence: users/presence.ts keeps presence in the record, so
 * nothing here is per kind of trigger), learned values and geofences, in the engine in use.
 */
export interface UserRecords {
  read(app: string, user: string): Promise<UserRecord | undefined>;
  /** Removes one user's record, presence included; adds what they held to `out`. */
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
  /** The app's place triggers (place-triggers/records.ts), dropped with the app. */
  placeTriggers?: { dropApp(app: string): Promise<number> };
}

/** The embedded environments the retention sweep's thread opens (stores.ts, retention.ts). */
export interface LocalStores {
  users: RootDatabase;
  geofences: GeofenceStore;
}

/** Whether a record holds geofence presence (what erase and retention count as `geofence_presence`). */
export const holdsFences = (rec: UserRecord | undefined): boolean => !!(rec?.p?.fences || rec?.g);
