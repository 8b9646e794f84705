/**
 * The embedded apps store as secrets/unlock.ts sees it: records and the check value (database
 * `meta` of apps.mdb, so a copy of apps.mdb carries the check of the key it was sealed with). One
 * process owns the data directory, so "unless changed since read" is a compare inside one write
 * transaction.
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import type { AppRecord } from '../../schemas/app.js';
import type { Keyring } from '../../secrets/keyring.js';
import { unlock, type SealedStore, type Target, type Unlocked } from '../../secrets/unlock.js';
import { openAppsDb } from './apps-db.js';

const CHECK = 'key-check';

export function lmdbSealedStore(dataDir: string, root: RootDatabase, db: Database<AppRecord, string>): SealedStore {
  const meta = root.openDB<string, string>({ name: 'meta' });
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return {
    where: `apps.mdb in ${dataDir}`,
    readCheck: async () => meta.get(CHECK),
    writeCheck: (next, previous) => root.transaction(() => {
      if (meta.get(CHECK) !== previous) return false;
      meta.put(CHECK, next);
      return true;
    }),
    all: async () => [...db.getRange()].map(({ value }) => value),
    get: async (key) => db.get(key),
    replace: (stored, next) => root.transaction(() => {
      if (!same(db.get(stored.app_key), stored)) return false;
      db.put(next.app_key, next);
      return true;
    }),
  };
}

/**
 * Opens apps.mdb for secrets/unlock.ts and, when it re-sealed anything, compacts the file: LMDB
 * copies on write, so the clear (or old-key) values would otherwise stay readable in its free
 * pages. Run before anything else of the process opens apps.mdb.
 */
export async function unlockAppsDb(dataDir: string, ring: Keyring, target: Target = 'current'): Promise<Unlocked> {
  const file = path.join(dataDir, 'apps.mdb');
  const { root, db } = openAppsDb(dataDir);
  let done: Unlocked;
  try {
    done = await unlock(ring, lmdbSealedStore(dataDir, root, db), target);
    if (done.resealed) await root.backup(file + '.compact', true);
  } finally {
    await root.close();
  }
  if (done.resealed) renameSync(file + '.compact', file);
  return done;
}

/** Cluster mode: this node's apps.mdb only mirrors the cluster's bucket; removed, so no value it held in clear outlives the key. */
export function dropAppsDb(dataDir: string): void {
  for (const f of ['apps.mdb', 'apps.mdb-lock']) rmSync(path.join(dataDir, f), { force: true });
}
