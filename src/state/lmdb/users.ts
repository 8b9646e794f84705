/**
 * The embedded engine's user records (state/types.ts UsersState) in the users environment, keyed
 * as the detection threads write them (users/keys.ts, users/store.ts): a read-modify-write is one
 * LMDB write transaction, which the threads of the process take one at a time, so no update is
 * lost or made twice; every write moves the record's key in the time index (users/touch.ts) that
 * the retention sweep reads from its oldest end.
 */
import type { RootDatabase } from 'lmdb';
import type { UsersState } from '../types.js';
import { emptyRecord, type UserRecord } from '../../users/records.js';
import { userKey } from '../../users/keys.js';
import { toucher, touchKey, type TouchKey } from '../../users/touch.js';

export function lmdbUsers(db: RootDatabase): UsersState {
  const touch = toucher(db);
  /** Inside a write transaction: the record and its time-index key; false when there was none. */
  const drop = (app: string, user: string): boolean => {
    const rec = db.get(userKey(app, user)) as UserRecord | undefined;
    if (!rec) return false;
    if (rec.d !== undefined) db.removeSync(touchKey(rec.d, app, user));
    return db.removeSync(userKey(app, user));
  };
  return {
    read: async (app, user) => {
      // lmdb-js renews a read snapshot after this thread's own writes only: another opening's commit is read at once.
      db.resetReadTxn();
      return db.get(userKey(app, user)) as UserRecord | undefined;
    },
    async modify(app, user, step) {
      return db.transactionSync(() => {
        // Decoded afresh on every get (no value cache), so it is the step's to change.
        const stored = db.get(userKey(app, user)) as UserRecord | undefined;
        const d = stored?.d;
        const out = step(stored ?? emptyRecord());
        if (out.record === null) drop(app, user);
        else {
          // `d` is the store's: the end of the slot its index key names (a step's own, such as
          // a cluster caller's write time, would orphan that key), moved on by the touch.
          if (d === undefined) delete out.record.d; else out.record.d = d;
          touch(app, user, out.record);
          db.putSync(userKey(app, user), out.record);
        }
        return out.result;
      });
    },
    remove: async (app, user) => db.transactionSync(() => drop(app, user)),
    async users(app) {
      db.resetReadTxn();
      return [...db.getKeys({ start: ['u', app], end: ['u', app + '\u0000'] })].map((k) => (k as string[])[2]);
    },
    async sweep(cutoffMs) {
      // The time index's keys name the end of the slot of a record's last write (its `d`).
      const due = [...db.getKeys({ start: ['ut'], end: ['ut', cutoffMs] })] as TouchKey[];
      return db.transactionSync(() => {
        let n = 0;
        for (const key of due) {
          const [, until, app, user] = key;
          const rec = db.get(userKey(app, user)) as UserRecord | undefined;
          // Written again since (a later key holds it): kept.
          if (rec && rec.d === until && db.removeSync(userKey(app, user))) n++;
          db.removeSync(key);
        }
        return n;
      });
    },
  };
}
