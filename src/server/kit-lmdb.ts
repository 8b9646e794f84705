/**
 * The embedded engine's state kit (state/types.ts StateKit): one process owns the data directory
 * and every kind is LMDB under it, on the production classes the detection and delivery threads
 * open too: apps.mdb (state/lmdb/apps.ts), the users environment for records and learned values
 * (state/lmdb/users.ts, learned.ts, written as users/store.ts writes them), geofences.mdb
 * (GeofenceStore with its expiry sweep), replay.mdb (ReplayCache), and the data directory's lock
 * as the lease. Retention is its own: the users' time index, swept on a thread of its own
 * (privacy/retention-thread.ts). It lives in the shell, not in state/, because GeofenceStore and ReplayCache
 * belong to geofences/ and server/, which state/ may not import (.dependency-cruiser.cjs).
 *
 * apps.mdb is unlocked first (secrets/unlock.ts: the key checked, clear secrets sealed), before
 * anything of the process opens it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { StateKit } from '../state/types.js';
import { lmdbApps } from '../state/lmdb/apps.js';
import { unlockAppsDb } from '../state/lmdb/apps-sealed.js';
import { lmdbUsers } from '../state/lmdb/users.js';
import { lmdbLearned } from '../state/lmdb/learned.js';
import { ownerLease } from '../state/lmdb/lease.js';
import { lmdbFences } from '../geofences/lmdb-fences.js';
import { openGeofenceService, type GeofenceService } from '../geofences/service.js';
import type { SecretKey } from '../secrets/key.js';
import { Keyring } from '../secrets/keyring.js';
import { ReplayCache } from './replay-cache.js';
import { lmdbReplay } from './replay-state.js';
import { closeAll } from './close-all.js';
import type { Versions } from '../learned/cache.js';
import { threadRetention } from '../privacy/retention-thread.js';
import { USERS_ENV } from '../users/env-options.js';

export interface LmdbKit extends StateKit {
  kind: 'lmdb';
  dataDir: string;
  /** The geofence store and its expiry sweep: the routes' store is the store itself (not in StateKit: the near index, imports in one batch). */
  geofences: GeofenceService;
  /** The key apps are sealed with (the one the node opened with), or undefined: stored clear. */
  sealWith: SecretKey | undefined;
}

/**
 * `versions`: the detection threads' version table (server/pool.ts), so that learned values merged
 * through the kit (feedback) are reloaded by their caches; absent, nobody caches them.
 */
export async function openLmdbState(dataDir: string, keyring = new Keyring([]), versions?: Versions): Promise<LmdbKit> {
  const { sealWith } = await unlockAppsDb(dataDir, keyring);
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // The options of openUserStore in the detection threads: one environment, one set of flags.
  const users: RootDatabase = open({ path: dir, ...USERS_ENV } as RootDatabaseOptionsWithPath);
  const apps = lmdbApps(dataDir);
  const geofences = openGeofenceService(dataDir);
  const replay = lmdbReplay(new ReplayCache(dataDir));
  return {
    kind: 'lmdb',
    dataDir,
    geofences,
    sealWith,
    apps,
    users: lmdbUsers(users),
    learned: lmdbLearned(users, versions),
    fences: lmdbFences(geofences.store, dataDir),
    replay,
    lease: ownerLease,
    health: () => undefined,
    retention: (ctx) => threadRetention(dataDir, users, ctx),
    close: () => closeAll('embedded state', [
      ['replay cache', () => replay.close()], ['geofences', () => geofences.close()], ['apps', () => apps.close()], ['users', () => users.close()],
    ]),
  };
}
