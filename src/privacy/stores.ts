/**
 * What the privacy operations reach (contract §7), engine-free: a user's records through
 * `records` (the embedded LMDB environments here, the cluster's state in cluster.ts), and the
 * trigger queue, recent detections and beacon registry through their own per-user and per-app
 * operations. The shell hands in the engine (server/state.ts); nothing here asks which one runs.
 *
 * The embedded users environment is written with noSync, as the workers write it: an erase is
 * committed at once and survives a crash of the process; only an operating-system crash in the
 * following moments could lose it, as it could lose the history written just before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { TriggerQueue } from '../state/outbox-types.js';
import { presenceDb } from '../geofences/presence.js';
import type { GeofenceStore } from '../geofences/store.js';
import { SLOT_KEY } from '../users/touch.js';
import type { LocalStores, PrivacyKinds } from './kinds.js';
import { embeddedRecords } from './embedded.js';

export type { DeletedRecords, ErasedFromRecord, LocalStores, PrivacyKinds, UserRecords } from './kinds.js';

/** The embedded engine's environments: the users environment, geofence presence, and the outbox. */
export interface PrivacyStores extends PrivacyKinds, LocalStores {}

/** Opens the users environment and records the touch slot width the workers will use. */
export function openPrivacyStores(dataDir: string, geofences: GeofenceStore, outbox: TriggerQueue, slotMs: number): PrivacyStores {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // The options of openUserStore in the workers (users/store.ts, workers/detect.ts).
  const users = open({ path: dir, useRecords: false, noSync: true, compression: false } as RootDatabaseOptionsWithPath);
  if (users.get(SLOT_KEY) !== slotMs) users.putSync(SLOT_KEY, slotMs);
  const s = { users, presence: presenceDb(geofences), geofences, outbox } as PrivacyStores;
  s.records = embeddedRecords(s);
  return s;
}
