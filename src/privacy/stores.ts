/**
 * What the privacy operations reach, opened once by the server: the users environment (as the
 * detection workers open it, so lmdb-js shares one environment between the threads), geofence
 * presence, and the outbox with its indexes.
 *
 * The users environment is written with noSync, as the workers write it: an erase is committed
 * at once and survives a crash of the process; only an operating-system crash in the following
 * moments could lose it, as it could lose the history written just before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { Presence } from '../geofences/events.js';
import { presenceDb } from '../geofences/presence.js';
import type { GeofenceStore } from '../geofences/store.js';
import type { BeaconStore } from '../beacons/store.js';
import { SLOT_KEY } from '../users/touch.js';
import type { RecentDetections } from '../recent/types.js';
import type { ClusterPrivacy } from './cluster.js';

export interface PrivacyStores {
  users: RootDatabase;
  presence: Database<Presence, [string, string]>;
  geofences: GeofenceStore;
  /** The trigger queue, either engine's: its per-user and per-app operations (state/outbox-types.ts). */
  outbox: TriggerQueue;
  /** The explorer's recent detections (recent/), when the server keeps them. */
  recent?: RecentDetections;
  /** Cluster mode: user records, learned values and fences are the cluster's (cluster.ts). */
  cluster?: ClusterPrivacy;
  /** The beacon registry (beacons/store.ts), when the server runs one. */
  beacons?: BeaconStore;
}

/** Opens the users environment and records the touch slot width the workers will use. */
export function openPrivacyStores(dataDir: string, geofences: GeofenceStore, outbox: TriggerQueue, slotMs: number): PrivacyStores {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // The options of openUserStore in the workers (users/store.ts, workers/detect.ts).
  const users = open({ path: dir, useRecords: false, noSync: true, compression: false } as RootDatabaseOptionsWithPath);
  if (users.get(SLOT_KEY) !== slotMs) users.putSync(SLOT_KEY, slotMs);
  return { users, presence: presenceDb(geofences), geofences, outbox };
}
