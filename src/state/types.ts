/**
 * The state Dwell keeps at run time, by kind, with what each operation promises. Two engines
 * implement it in production: the cluster (NATS JetStream KV, any number of nodes: state/nats/)
 * and the embedded one (LMDB under DWELL_DATA_DIR, one process: server/kit-lmdb.ts over the
 * feature classes, which state/ may not import). server/state-kit.ts is the one place that
 * chooses; test/state/ runs contract.ts on both kits. Everything here is async because the
 * cluster's answers are.
 *
 * Failure: an operation the cluster cannot answer in time rejects with DwellError `unavailable`
 * (503 with Retry-After), never hangs; nothing is half-written by a rejected write.
 */
import type { AppRecord } from '../schemas/app.js';
import type { StoredGeofence } from '../schemas/geofence.js';
import type { UserRecord } from '../users/records.js';
import type { Metrics } from '../http/metrics.js';
import type { TriggerQueue } from './outbox-types.js';

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
  /**
   * True when every app there is was written through this process (one process owns the
   * embedded data directory): a key this node does not hold exists nowhere, so it is never asked
   * for. False (the cluster): an app created on another node a moment ago may not have reached
   * this node's watch yet, and `get` asks.
   */
  readonly complete: boolean;
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
  /**
   * True when this node already knows `key` claimed and not run out: a refusal without a round
   * trip, before the request spends its rate limit. False decides nothing; the claim does.
   */
  known(key: string): boolean;
  /** Claims this node remembers (the metrics' gauge; 0 when it remembers none). */
  readonly size: number;
  close(): Promise<void>;
}

/** A lease for work that runs once per cluster (expiry sweeps, retention). */
export interface LeaseState {
  /** True while this node holds the lease `name` (taking it when free); renew by calling again. */
  hold(name: string): Promise<boolean>;
}

/** How long users and dead triggers are kept (contract §7) and how often retention looks, ms. */
export interface RetentionPlan { userRetentionMs: number; deadRetentionMs: number; intervalMs: number; slotMs: number }

/** What retention removed, by kind (the `kind` label of dwell_retention_removed_total). */
export interface RetentionCounts { users: number; geofence_presence: number; dead_triggers: number }

/** What a retention run is started with: the plan, the trigger queue whose dead it purges, and the server around it. */
export interface RetentionContext {
  retention: RetentionPlan; outbox: TriggerQueue; metrics: Metrics;
  /** True while a request is in flight: retention keeps to the moments between. */
  busy?: () => boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

/** A running retention: what it removed so far, the request bracket it paces by, and its stop. */
export interface RetentionRun {
  removed(): RetentionCounts;
  /** Around every request (the HTTP thread). */
  enter(): void;
  leave(): void;
  close(): Promise<void>;
}

/** Everything, as opened by the shell from config.state (server/state-kit.ts). */
export interface StateKit {
  kind: 'lmdb' | 'nats';
  apps: AppsState;
  users: UsersState;
  learned: LearnedState;
  fences: FencesState;
  replay: ReplayState;
  lease: LeaseState;
  /** 'up' while the state engine answers (readiness), else 'down'; undefined where the state is the process's own (embedded) and cannot be out of reach. */
  health(): 'up' | 'down' | undefined;
  /**
   * Retention run the kit's own way, where it has a cheaper one than privacy's default (the lease
   * holder's `users.sweep`, which reads every user: privacy/retention-lease.ts). The embedded kit
   * sweeps its time index on a thread of its own (privacy/retention-thread.ts).
   */
  retention?(ctx: RetentionContext): RetentionRun;
  close(): Promise<void>;
}
