/**
 * Per-user state in LMDB: history and open stays (key ['u', user]) and access points learned per
 * app (key ['ap', app, bssid]). Worker threads of one process, and processes, share the env;
 * every read-modify-write runs inside one write transaction so concurrent requests of the same
 * user neither lose nor duplicate an update.
 */
import path from 'node:path';
import fs from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { emptyRecord, type UserRecord } from './records.js';
import type { LearnedAp } from '../detect/evidence/wifi.js';

export interface ApObservation { bssid: string; venueId: string; weight: number }

export interface UserUpdate<T> { record: UserRecord; result: T; learn?: { app: string; aps: ApObservation[] } }

export interface UserStore {
  /** A snapshot of the user's record, for reading only. */
  read(user: string): UserRecord | undefined;
  /** Atomic read-modify-write of one user's record (and of any access points it learns). */
  update<T>(user: string, fn: (record: UserRecord) => UserUpdate<T>): T;
  /** What is known of each BSSID for this app, in the order asked. */
  learnedAps(app: string, bssids: readonly string[]): Array<LearnedAp | undefined>;
  /** Teaches access points seen at confident visits (for requests without a user). */
  learn(app: string, aps: ApObservation[]): void;
  close(): void;
}

export interface UserStoreOptions {
  /** Skip fsync at commit (benchmarks, tests): a crash may lose the latest updates. */
  noSync?: boolean;
}

const MAX_VENUES_PER_AP = 8;

export function openUserStore(dataDir: string, opts: UserStoreOptions = {}): UserStore {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  const root: RootDatabase = open({ path: dir, noSync: opts.noSync ?? false, compression: false });
  const db: Database = root;

  const learn = (app: string, obs: ApObservation[]) => {
    for (const o of obs) {
      const key = ['ap', app, o.bssid];
      const ap: LearnedAp = { ...((db.get(key) as LearnedAp | undefined) ?? {}) };
      ap[o.venueId] = (ap[o.venueId] ?? 0) + o.weight;
      const ids = Object.keys(ap);
      if (ids.length > MAX_VENUES_PER_AP) {
        ids.sort((a, b) => ap[a] - ap[b]);
        for (let i = 0; i < ids.length - MAX_VENUES_PER_AP; i++) delete ap[ids[i]];
      }
      db.putSync(key, ap);
    }
  };

  return {
    read: (user) => db.get(['u', user]) as UserRecord | undefined,
    update<T>(user: string, fn: (record: UserRecord) => UserUpdate<T>): T {
      return root.transactionSync(() => {
        const stored = db.get(['u', user]) as UserRecord | undefined;
        // Decoded afresh on every get (no value cache), so it is ours to change.
        const rec: UserRecord = stored ?? emptyRecord();
        const out = fn(rec);
        db.putSync(['u', user], out.record);
        if (out.learn && out.learn.aps.length) learn(out.learn.app, out.learn.aps);
        return out.result;
      });
    },
    learn: (app, aps) => { if (aps.length) root.transactionSync(() => learn(app, aps)); },
    learnedAps: (app, bssids) => bssids.map((b) => (b ? (db.get(['ap', app, b]) as LearnedAp | undefined) : undefined)),
    close: () => { void root.close(); },
  };
}
