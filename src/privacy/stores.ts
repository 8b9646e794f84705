/**
 * The embedded environments, opened by a thread of their own: the retention sweep's thread
 * (workers/sweep.ts) and the privacy tests and bench. The server's HTTP thread opens none of
 * them here: its privacy runs over its state kit (engine.ts). `records` is the one
 * implementation (records.ts) over this opening's users environment and geofence store, as the
 * embedded kit (server/kit-lmdb.ts) wraps them.
 *
 * The users environment is written with noSync, as the workers write it: an erase is committed
 * at once and survives a crash of the process; only an operating-system crash in the following
 * moments could lose it, as it could lose the history written just before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceStore } from '../geofences/store.js';
import { lmdbFences } from '../geofences/lmdb-fences.js';
import { lmdbUsers } from '../state/lmdb/users.js';
import { lmdbLearned } from '../state/lmdb/learned.js';
import { SLOT_KEY } from '../users/touch.js';
import type { LocalStores, PrivacyKinds } from './kinds.js';
import { kitRecords } from './records.js';
import { USERS_ENV } from '../users/env-options.js';

export type { DeletedRecords, ErasedFromRecord, LocalStores, PrivacyKinds, UserRecords } from './kinds.js';

/** The embedded engine's environments: the users environment, the geofence store, and the outbox. */
export interface PrivacyStores extends PrivacyKinds, LocalStores {}

/** Opens the users environment and records the touch slot width the workers will use. */
export function openPrivacyStores(dataDir: string, geofences: GeofenceStore, outbox: TriggerQueue, slotMs: number): PrivacyStores {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // The options of openUserStore in the workers: one environment, one set of flags.
  const users = open({ path: dir, ...USERS_ENV } as RootDatabaseOptionsWithPath);
  if (users.get(SLOT_KEY) !== slotMs) users.putSync(SLOT_KEY, slotMs);
  const records = kitRecords({ users: lmdbUsers(users), learned: lmdbLearned(users), fences: lmdbFences(geofences, dataDir) });
  return { users, geofences, outbox, records };
}
