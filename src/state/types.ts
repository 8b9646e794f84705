/**
 * The state Dwell keeps at run time, by kind, with what each operation promises, as the cluster
 * engine implements it (NATS JetStream KV, any number of nodes: state/nats/). The embedded engine
 * (LMDB under DWELL_DATA_DIR, one process) keeps these promises in its feature classes, opened by
 * server/state-embedded.ts; test/state/ checks both (contract.ts, embedded.test.ts). Everything
 * here is async because the cluster's answers are.
 *
 * Failure: an operation the cluster cannot answer in time rejects with DwellError `unavailable`
 * (503 with Retry-After), never hangs; nothing is half-written by a rejected write.
 */
import type { AppRecord } from '../schemas/app.js';
import type { StoredGeofence } from '../schemas/geofence.js';
import type { UserRecord } from '../users/records.js';

/** One change seen by a watch: the record as it now is, or undefined once deleted. */
export type Change<T> = (key: string, value: T | undefined) => void;

/**
 * A running watch: `ready` once the values stored when it began have been seen; `caughtUp` true
 * once every change acknowledged before the call has been (false: still behind after `maxMs`).
 */
export interface Watching { ready: Promise<void>; stop(): void; caughtUp(maxMs: number): Promise<boolean> }

/** Apps by app key. Every node holds them all in memory (a request is verified without a round trip). */
export interface AppsState {
  /** Every app, as stored now. */
  all(): Promise<AppRecord[]>;
  get(appKey: string): Promise<AppRecord | undefined>;
  /** Durable (replicated) before it resolves. */
  put(app: AppRecord): Promise<void>;
  /** False when there was none. */
  remove(appKey: string): Promise<boolean>;
  /** Calls `fn` with every app, then with every change made by any node, within a second. */
  watch(fn: Change<AppRecord>): Watching;
  close(): Promise<void>;
}

/** What one run of a read-modify-write step answers: the record to store (or null: delete it) and the caller's result. */
export interface Step<T> { record: UserRecord | null; result: T }

/** Per-user records, by app then user (a user id means nothing outside its app, contract §7). */
export interface UsersState {
  read(app: string, user: string): Promise<UserRecord | undefined>;
  /**
   * Atomic read-modify-write: `step` gets the stored record (a fresh empty one when none) and may
   * change it. When another writer got there first, `step` runs again on the newer record, so
   * `step` must be pure apart from what it answers (a lost update is impossible, a duplicate one
   * too). Answers the result of the run that was stored.
   */
  modify<T>(app: string, user: string, step: (rec: UserRecord) => Step<T>): Promise<T>;
  /** False when there was none. */
  remove(app: string, user: string): Promise<boolean>;
  /** The user ids of an app that have a record. */
  users(app: string): Promise<string[]>;
  /** Removes every record last written before `cutoffMs` (its `d`); answers how many. */
  sweep(cutoffMs: number): Promise<number>;
}

/**
 * What an app's detections learn (learned/tables.ts): values keyed by kind, app and name
 * (['apx', app, bssid] an access point's place, ['pv', app, bssid] a joined network's pooled
 * stays, ['kp', app, ''] kind priors, ['ks:<table>', app, ''] a sparse table). Writes are
 * read-modify-writes that never lose another node's (merges are sums). Reads are local and
 * synchronous (a detection reads dozens a request) and see a write made anywhere once it has
 * reached this node, within a second.
 */
export type LearnedKey = readonly [kind: string, app: string, name: string];

export interface LearnedState {
  /** The value as this node knows it now. */
  peek<V>(key: LearnedKey): V | undefined;
  /** Atomic read-modify-write; `fn` answers the new value, or undefined to leave it; may run again on a newer value. */
  merge<V>(key: LearnedKey, fn: (old: V | undefined) => V | undefined): Promise<void>;
  /** Drops everything learned for the app; answers how many values went. */
  dropApp(app: string): Promise<number>;
}

/** Geofence records by app and id; expiry is decided at read time (an expired record is absent). */
export interface FencesState {
  get(app: string, id: string): Promise<StoredGeofence | undefined>;
  /** Live records of an app after `after` in id order, `limit` at most; `next` when more may follow. */
  list(app: string, q: { tag?: string; after?: string; limit: number }): Promise<{ items: StoredGeofence[]; next: string | null }>;
  put(rec: StoredGeofence): Promise<void>;
  /** Read-modify-write of one fence; `fn` answers the new record, or undefined to leave it. */
  update(app: string, id: string, fn: (rec: StoredGeofence) => StoredGeofence | undefined): Promise<StoredGeofence | undefined>;
  remove(app: string, id: string): Promise<boolean>;
  /** Every record of the app, for building an index. */
  scan(app: string): Promise<StoredGeofence[]>;
  /** Every change made by any node (key `<app>.<id>`), within a second; the cluster's watch first gives every stored record. */
  watch(fn: Change<StoredGeofence>): Watching;
}

/** Signatures already accepted (contract §1): a signature accepted on one node is refused on all. */
export interface ReplayState {
  /**
   * Claims `key` until `untilS` (unix seconds): resolves true the first time, false when any node
   * claimed it before and the claim has not run out.
   */
  claim(key: string, untilS: number): Promise<boolean>;
}

/** A lease for work that runs once per cluster (expiry sweeps, retention). */
export interface LeaseState {
  /** True while this node holds the lease `name` (taking it when free); renew by calling again. */
  hold(name: string): Promise<boolean>;
}

/** Everything, as opened by the shell from config.state. */
export interface StateKit {
  kind: 'lmdb' | 'nats';
  apps: AppsState;
  users: UsersState;
  learned: LearnedState;
  fences: FencesState;
  replay: ReplayState;
  lease: LeaseState;
  /** 'up' while the state engine answers (readiness), else 'down'. */
  health(): 'up' | 'down';
  close(): Promise<void>;
}
