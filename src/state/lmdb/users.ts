/**
 * Per-user records in the embedded users environment (the one users/store.ts opens, same options
 * and keys, retention index included): a read-modify-write is one LMDB write transaction, so it
 * never conflicts and `step` runs once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { emptyRecord, type UserRecord } from '../../users/records.js';
import { userKey } from '../../users/keys.js';
import { toucher, touchKey } from '../../users/touch.js';
import type { Step, UsersState } from '../types.js';

export function openUsersEnv(dataDir: string): RootDatabase {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  return open({ path: dir, useRecords: false, noSync: true, compression: false } as RootDatabaseOptionsWithPath);
}

export function lmdbUsers(db: RootDatabase): UsersState {
  const touch = toucher(db);
  const drop = (app: string, user: string, rec: UserRecord) => {
    if (rec.d !== undefined) db.removeSync(touchKey(rec.d, app, user));
    db.removeSync(userKey(app, user));
  };
  return {
    read: async (app, user) => db.get(userKey(app, user)) as UserRecord | undefined,
    modify: async <T>(app: string, user: string, step: (rec: UserRecord) => Step<T>) => db.transactionSync(() => {
      const stored = db.get(userKey(app, user)) as UserRecord | undefined;
      const out = step(stored ?? emptyRecord());
      if (out.record === null) { if (stored) drop(app, user, stored); return out.result; }
      touch(app, user, out.record);
      db.putSync(userKey(app, user), out.record);
      return out.result;
    }),
    remove: async (app, user) => db.transactionSync(() => {
      const rec = db.get(userKey(app, user)) as UserRecord | undefined;
      if (rec) drop(app, user, rec);
      return rec !== undefined;
    }),
    users: async (app) => [...db.getKeys({ start: ['u', app], end: ['u', app + '\u0000'] })].map((k) => (k as string[])[2]),
    // The retention index, oldest first (privacy/retention.ts does the same in bounded batches).
    sweep: async (cutoffMs) => db.transactionSync(() => {
      let n = 0;
      for (const k of [...db.getKeys({ start: ['ut'], end: ['ut', cutoffMs] })]) {
        const [, , app, user] = k as [string, number, string, string];
        const rec = db.get(userKey(app, user)) as UserRecord | undefined;
        db.removeSync(k);
        if (rec && (rec.d ?? 0) <= cutoffMs) { drop(app, user, rec); n++; }
      }
      return n;
    }),
  };
}
