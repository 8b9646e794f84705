/**
 * Data directories written before user records were scoped by app hold records keyed
 * ['u', user]. Such a record cannot be attributed to an app: the advertising id is device-wide,
 * so one record may be several apps' histories merged (the bug scoping fixes), and nothing in it
 * names an app (venue ids, stay centres, and visit ids that hash the app key with the caller's
 * event ids, which are not kept). Handing it to any app would leak another's history, so they
 * are dropped: once, at startup, before any worker reads the store, with the count logged. The
 * users lose their history (first and last visit times, the prior of past stays) and an open
 * stream stay, once; learned tables (access points, pooled networks, kind priors) are per app
 * already and hold no user id, so they stay.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import { log } from '../log.js';
import { isUnscopedUserKey, SCOPED_MARKER } from './keys.js';
import { USERS_ENV } from './env-options.js';

/** Deletes unscoped user records unless already done; answers how many were deleted. */
export async function dropUnscopedUsers(dataDir: string): Promise<number> {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // The options of openUserStore, but with fsync at commit: the drop is done once and for good.
  const root = open({ path: dir, ...USERS_ENV, noSync: false } as RootDatabaseOptionsWithPath);
  try {
    const dropped = root.transactionSync(() => {
      if (root.get(SCOPED_MARKER) !== undefined) return 0;
      // Every user key, old and new, sorts between ['u'] and ['v']; the filter keeps the old.
      // Collected first: deleting under a live cursor would move it.
      const old = [...root.getKeys({ start: ['u'], end: ['v'] })].filter(isUnscopedUserKey);
      for (const key of old) root.removeSync(key);
      root.putSync(SCOPED_MARKER, 1);
      return old.length;
    });
    if (dropped > 0) log.warn('dropped user records not scoped by app', { count: dropped, reason: 'written before records were keyed by app; the app cannot be recovered' });
    return dropped;
  } finally {
    // Closed before the workers open it without fsync.
    await root.close();
  }
}
