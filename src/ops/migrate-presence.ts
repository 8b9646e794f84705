/**
 * Data format 1 → 2: geofence presence moves from the geofence environment's own `presence`
 * database (key [app, user]) into the user's record (users/presence.ts, record field `p`), where
 * detection now reads and commits it with the visits. An upgraded user inside a fence stays
 * inside: their next fix there raises no second entry. A user with presence but no record gets
 * a record holding only it, with a retention key as of now (its retention starts at the upgrade).
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { FencePresence } from '../geofences/events.js';
import { emptyRecord, presenceOf, setPresence, type UserRecord } from '../users/records.js';
import { userKey } from '../users/keys.js';
import { toucher } from '../users/touch.js';
import { USERS_ENV } from '../users/env-options.js';

/** Answers how many users' presence moved. */
export async function movePresenceToRecords(dir: string): Promise<number> {
  const fencesFile = path.join(dir, 'geofences.mdb');
  if (!fs.existsSync(fencesFile)) return 0;
  const fences = open({ path: fencesFile, compression: false });
  const usersDir = path.join(dir, 'users');
  fs.mkdirSync(usersDir, { recursive: true });
  // The options of users/store.ts openUserStore, with fsync at commit: a migration is done once and for good.
  const users = open({ path: usersDir, ...USERS_ENV, noSync: false } as RootDatabaseOptionsWithPath);
  let moved = 0;
  try {
    const presence = fences.openDB<FencePresence, [string, string]>({ name: 'presence' });
    const touch = toucher(users);
    users.transactionSync(() => {
      for (const { key: [app, user], value } of presence.getRange({})) {
        const key = userKey(app, user);
        const rec = (users.get(key) as UserRecord | undefined) ?? emptyRecord();
        // A record already holding fence presence (none should) keeps its own.
        if (presenceOf(rec).fences) continue;
        setPresence(rec, { ...presenceOf(rec), fences: { inside: value.inside, last: value.last } });
        touch(app, user, rec);
        users.putSync(key, rec);
        moved++;
      }
    });
    fences.transactionSync(() => presence.dropSync());
  } finally {
    await users.close();
    await fences.close();
  }
  return moved;
}
