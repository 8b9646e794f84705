/**
 * Per-user state in LMDB: history and open stays (key ['u', app, user]: everything stored about
 * a user belongs to one app, contract §7), in the environment that also holds what the app's
 * detections learn (learned/tables.ts). Worker threads of one process, and processes, share the
 * env; every write of a record is one write transaction holding what the visit taught, and
 * detection's (`modify`) checks there that the record is still the one it ran on (else runs
 * again), so concurrent requests of the same user neither lose nor duplicate an update.
 */
import path from 'node:path';
import fs from 'node:fs';
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { emptyRecord, type UserRecord } from './records.js';
import { userKey } from './keys.js';
import { newVersions, type Versions } from '../learned/cache.js';
import { learnedTables, type ApObservation, type LearnedTables } from '../learned/tables.js';
import { toucher } from './touch.js';
import { USERS_ENV } from './env-options.js';

export interface UserUpdate<T> { record: UserRecord; result: T; learn?: { app: string; aps: ApObservation[] } }

export interface UserStore extends Pick<LearnedTables, 'apPlaces' | 'pooledAps' | 'learnedBeacons' | 'mergePriors' | 'mergeSparse'> {
  /** A snapshot of the app's user's record, for reading only. */
  read(app: string, user: string): UserRecord | undefined;
  /** Atomic read-modify-write of one user's record in one app (and of any access points it learns). */
  update<T>(app: string, user: string, fn: (record: UserRecord) => UserUpdate<T>): T;
  /** Teaches access points seen at confident visits (for requests without a user). */
  learn(app: string, aps: ApObservation[]): void;
  /**
   * Renews this thread's read snapshot. A worker runs its tasks back to back without its event
   * loop turning, and lmdb-js renews snapshots on a timer: without this, a worker under load
   * would keep reading what the other workers had written when the load began.
   */
  fresh(): void;
  close(): void;
}

/** What one pure run on a user's record answers: the record to store (undefined: leave it) and what it taught. */
export interface Committed<T> { record: UserRecord | undefined; result: T; aps: readonly ApObservation[] }

/** The detection thread's side of the store: read, run, commit (pipeline/thread-embedded.ts). */
export interface UserCommits extends UserStore {
  /**
   * Reads the user's record (undefined: none), runs `step` on it outside any transaction, then
   * stores what it answers and teaches in one write transaction, unless the record changed
   * meanwhile (another thread's commit): then `step` runs again, inside the transaction, on the
   * record as it now is. `step` must be pure apart from what it answers.
   */
  modify<T>(app: string, user: string, step: (rec: UserRecord | undefined) => Committed<T>): T;
  /** Commits what a run without a user taught. */
  teach(app: string, aps: readonly ApObservation[]): void;
  /** `modify`'s read and run, its write left for `commitAll` (a batch's one transaction). */
  prepare<T>(app: string, user: string, step: (rec: UserRecord | undefined) => Committed<T>): Prepared<T>;
  /** `teach` left for `commitAll`. */
  prepareTeach(app: string, aps: readonly ApObservation[]): Prepared<void>;
  /**
   * Applies the prepared writes in ONE write transaction, in order (a later one of the same user
   * finds the record changed and runs again on it). One whose `apply` throws answers its own
   * error and writes nothing of its own (a step throws before its writes); the others commit.
   */
  commitAll(prepared: ReadonlyArray<Prepared<unknown>>): Array<Applied<unknown>>;
}

/** A run done outside any transaction; `apply` stores it (inside one: `commitAll`). */
export interface Prepared<T> { readonly writes: boolean; apply(): T }
export type Applied<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface UserStoreOptions {
  /** Shared by the threads of one process that open this store (learned/cache.ts); one of its own if absent. */
  versions?: Versions;
}

export function openUserStore(dataDir: string, opts: UserStoreOptions = {}): UserCommits {
  const dir = path.join(dataDir, 'users');
  fs.mkdirSync(dir, { recursive: true });
  // (lmdb-js hands msgpackr options such as useRecords to its encoder; its types omit them.)
  const root: RootDatabase = open({ path: dir, ...USERS_ENV } as RootDatabaseOptionsWithPath);
  const db: Database = root;
  const versions = opts.versions ?? newVersions();
  const learned = learnedTables(root, versions);
  const { teaching, learn } = learned;
  const touch = toucher(db);
  // lmdb-js's own msgpack decoder (its types omit it): the record decoded from the bytes kept for the check.
  const decoder = (db as unknown as { decoder: { decode(bytes: Uint8Array): unknown } }).decoder;

  function prepare<T>(app: string, user: string, step: (rec: UserRecord | undefined) => Committed<T>): Prepared<T> {
    const key = userKey(app, user);
    // The bytes as read (a copy): the commit compares them with what is stored then.
    const bytes = db.getBinary(key);
    const first = step(bytes && (decoder.decode(bytes) as UserRecord));
    if (first.record === undefined && first.aps.length === 0) return { writes: false, apply: () => first.result };
    // Inside the write transaction (teaching): stored unless another commit changed the record meanwhile.
    return {
      writes: true,
      apply() {
        // getBinary, not getBinaryFast: the fast one answers lmdb-js's whole reusable buffer.
        const now = db.getBinary(key);
        const same = now === undefined ? bytes === undefined : bytes !== undefined && Buffer.compare(now, bytes) === 0;
        const out = same ? first : step(db.get(key) as UserRecord | undefined);
        if (out.record) {
          touch(app, user, out.record);
          db.putSync(key, out.record);
        }
        if (out.aps.length) learn(app, out.aps as ApObservation[]);
        return out.result;
      },
    };
  }

  return {
    read: (app, user) => db.get(userKey(app, user)) as UserRecord | undefined,
    update<T>(app: string, user: string, fn: (record: UserRecord) => UserUpdate<T>): T {
      const key = userKey(app, user);
      return teaching(() => {
        const stored = db.get(key) as UserRecord | undefined;
        // Decoded afresh on every get (no value cache), so it is ours to change.
        const rec: UserRecord = stored ?? emptyRecord();
        const out = fn(rec);
        touch(app, user, out.record);
        db.putSync(key, out.record);
        if (out.learn && out.learn.aps.length) learn(out.learn.app, out.learn.aps);
        return out.result;
      });
    },
    modify<T>(app: string, user: string, step: (rec: UserRecord | undefined) => Committed<T>): T {
      const p = prepare(app, user, step);
      return p.writes ? teaching(p.apply) : p.apply();
    },
    prepare: (app, user, step) => prepare(app, user, step),
    prepareTeach: (app, aps) => ({ writes: aps.length > 0, apply: () => { if (aps.length) learn(app, aps as ApObservation[]); } }),
    commitAll(prepared) {
      const out: Array<Applied<unknown>> = new Array(prepared.length);
      const each = () => {
        for (let i = 0; i < prepared.length; i++) {
          try {
            out[i] = { ok: true, value: prepared[i].apply() };
          } catch (error) {
            out[i] = { ok: false, error };
          }
        }
      };
      if (prepared.some((p) => p.writes)) teaching(each);
      else each();
      return out;
    },
    teach: (app, aps) => { if (aps.length) teaching(() => learn(app, aps as ApObservation[])); },
    learn: (app, aps) => { if (aps.length) teaching(() => learn(app, aps)); },
    fresh: () => { learned.begin(); root.resetReadTxn(); },
    mergePriors: learned.mergePriors,
    mergeSparse: learned.mergeSparse,
    apPlaces: learned.apPlaces,
    pooledAps: learned.pooledAps,
    learnedBeacons: learned.learnedBeacons,
    close: () => { void root.close(); },
  };
}
