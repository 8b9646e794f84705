/**
 * Retention (contract §7): users untouched for DWELL_USER_RETENTION_DAYS and dead triggers
 * DWELL_DEAD_RETENTION_DAYS after they died are deleted. Incremental: each tick removes small
 * batches for at most a few milliseconds, reading only what is due from time indexes (touch.ts's
 * ['ut', until, app, user] and the outbox's dead-by-time), so its cost follows what it removes,
 * not the store's size. Its state is those indexes and two cursors in the users environment: a
 * restart carries on where it stopped.
 *
 * When it runs and how much at a time is sweep-pace.ts's: between requests, in write
 * transactions sized by their measured time, with a guaranteed minimum rate while the server is
 * never idle. Where: on a thread of its own in the embedded store (retention-thread.ts); on the
 * HTTP thread under the lease holder's retention (retention-lease.ts: the cluster), where it only
 * purges dead triggers. Why: bench:privacy and
 * docs/performance.md.
 *
 * Presence (fences, places, country) is part of its user's record (users/presence.ts), so it goes
 * with the record and never outlives it. Records written
 * before the touch index existed get a key as of now, by a walk with a persisted cursor (their
 * retention starts the day it reaches them).
 */
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import type { Metrics } from '../http/metrics.js';
import type { UserRecord } from '../users/records.js';
import { userKey } from '../users/keys.js';
import { holdsFences, type LocalStores } from './kinds.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { RetentionCounts } from '../state/types.js';

/** What a sweep reaches: the outbox, and the embedded environments when it sweeps users there. */
export type SweepStores = { outbox: TriggerQueue } & Partial<LocalStores>;
import { touchKey, type TouchKey } from '../users/touch.js';
import { SweepPace } from './sweep-pace.js';
import { clock, onAdvance } from '../time/clock.js';

export interface RetentionOptions {
  /** 0: users are kept until erased. */
  userRetentionMs: number;
  /** 0: dead triggers are kept until replayed or the app is deleted. */
  deadRetentionMs: number;
  /** The clock, ms: tests inject one instead of waiting days. */
  now?: () => number;
  intervalMs?: number;
  /** Records read per batch (one write transaction each), fixed; absent: sized by measured time (sweep-pace.ts). */
  batch?: number;
  /** True while a request is in flight: the sweep keeps to the moments between (sweep-pace.ts). */
  busy?: () => boolean;
  /** Users removed per second even while requests never stop (default MIN_SWEEP_PER_SECOND). */
  minPerSecond?: number;
  /** The sweep's own work per tick, ms (default SWEEP_BUDGET_MS). */
  budgetMs?: number;
  metrics?: Metrics;
  /** What each tick removed, when it removed anything (the sweep's thread reports it: sweep-thread.ts). */
  onRemoved?: (counts: SweepCounts) => void;
}

/** What a sweep removed, by kind (the state kit's shape: a kit's own retention reports the same). */
export type SweepCounts = RetentionCounts;

const MAX = '\uffff';
/** Target time of one batch's write transaction, ms: what a request arriving during it may wait. */
export const SWEEP_BATCH_MS = 0.5;
/**
 * The sweep's own work per tick (one a second), ms. What it costs detection is less its CPU
 * than its write transactions (the users store's write lock and commits detection writes queue
 * behind): `bench:privacy` at 200 req/s on an idle 2-core machine gave detect p99 ×1.24 while
 * sweeping with 20 ms a tick (2,500 users/s removed) and ×1.09 (0.99–1.19) with 5 ms (~500
 * users/s: a backlog of a million users within 35 minutes, and a year's retention of 10 million
 * users expires about 0.3 a second).
 */
export const SWEEP_BUDGET_MS = 5;
/** The guaranteed rate under unbroken load: a backlog of 1 million users within 2 h 47 min. */
export const MIN_SWEEP_PER_SECOND = 100;
/** Lets pending I/O and the workers' commits run before the next batch. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const BACKFILL = ['meta', 'touch-backfill'];

export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private unwatch: () => void = () => {};
  private running: Promise<unknown> | null = null;
  private readonly now: () => number;
  private readonly pace: SweepPace;
  private readonly budgetMs: number;
  private readonly counter;
  readonly removed: SweepCounts = { users: 0, geofence_presence: 0, dead_triggers: 0 };

  constructor(private readonly s: SweepStores, private readonly opts: RetentionOptions) {
    this.now = opts.now ?? clock.now;
    this.pace = new SweepPace({
      busy: opts.busy, intervalMs: opts.intervalMs ?? 1000, minPerSecond: opts.minPerSecond ?? MIN_SWEEP_PER_SECOND,
      batchMs: SWEEP_BATCH_MS, fixedBatch: opts.batch,
    });
    this.budgetMs = opts.budgetMs ?? SWEEP_BUDGET_MS;
    this.counter = opts.metrics?.counter('dwell_retention_removed_total', 'records deleted by the retention sweeps, by kind');
  }

  start(): this {
    if (this.opts.userRetentionMs <= 0 && this.opts.deadRetentionMs <= 0) return this;
    this.pace.stopping = false;
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 1000);
    this.timer.unref();
    this.unwatch = onAdvance(() => void this.tick()); // a test moved time: sweep what fell due now
    void this.tick();
    return this;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch();
    this.pace.stopping = true;
    await this.running?.catch(() => undefined);
  }

  /** Batches until nothing is due or the tick's budget is spent; answers what it removed. */
  async sweepOnce(): Promise<SweepCounts> {
    const out: SweepCounts = { users: 0, geofence_presence: 0, dead_triggers: 0 };
    // The budget counts the sweep's own work, not its turns of the event loop: on a busy machine
    // a turn can take longer than the whole budget.
    let spent = 0;
    let more = true;
    this.pace.begin();
    // The first batch even when the budget is 0, so every tick makes progress.
    while (more && (spent === 0 || spent < this.budgetMs) && (await this.pace.clear())) {
      const start = performance.now();
      const size = this.pace.size;
      more = false;
      let read = 0;
      const now = this.now();
      if (this.opts.userRetentionMs > 0 && this.s.users) {
        const cutoff = now - this.opts.userRetentionMs;
        const users = this.usersDue(cutoff, size, out);
        const backfilled = this.backfill(now, size);
        read = Math.max(users, backfilled);
        more ||= users === size || backfilled === size;
      }
      if (this.opts.deadRetentionMs > 0) {
        const n = await this.s.outbox.purgeDead(now - this.opts.deadRetentionMs, size);
        out.dead_triggers += n;
        read = Math.max(read, n);
        more ||= n === size;
      }
      const took = performance.now() - start;
      spent += took;
      this.pace.done(read, took);
      if (more && spent < this.budgetMs) await turn();
    }
    for (const [kind, n] of Object.entries(out)) if (n > 0) { this.counter?.inc({ kind }, n); this.removed[kind as keyof SweepCounts] += n; }
    if (out.users + out.geofence_presence + out.dead_triggers > 0) this.opts.onRemoved?.(out);
    return out;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.sweepOnce();
    try {
      const n = (await this.running) as SweepCounts;
      if (n.users + n.geofence_presence + n.dead_triggers > 0) log.debug('retention sweep', { ...n });
    } catch (err) {
      // The cluster's state out of reach is an outage the node reports elsewhere (readyz, 503s); the next tick tries again.
      if (err instanceof DwellError && err.code === 'unavailable') log.warn('retention sweep skipped', { error: err.message });
      else log.error('retention sweep failed', { error: String((err as Error)?.message ?? err) });
    } finally {
      this.running = null;
    }
  }

  /** Users whose last write was in a slot ending at or before `cutoff`; answers the keys read. */
  private usersDue(cutoff: number, batch: number, out: SweepCounts): number {
    const users = this.s.users!;
    const keys = [...users.getKeys({ start: ['ut'], end: ['ut', cutoff + 1], limit: batch })] as TouchKey[];
    if (keys.length === 0) return 0;
    let gone = 0;
    users.transactionSync(() => {
      for (const key of keys) {
        const [, until, app, user] = key;
        const rec = users.get(userKey(app, user)) as UserRecord | undefined;
        // Written again since the key was read (a later key exists), or backfilled: see backfill().
        if (rec && (rec.d === until || rec.d === undefined)) {
          users.removeSync(userKey(app, user));
          gone++;
          if (holdsFences(rec)) out.geofence_presence++;
        }
        users.removeSync(key);
      }
    });
    out.users += gone;
    return keys.length;
  }

  /** Gives records written before the touch index a key as of now, a batch at a time. */
  private backfill(now: number, batch: number): number {
    const users = this.s.users!;
    const from = users.get(BACKFILL) as unknown[] | 'done' | undefined;
    if (from === 'done') return 0;
    const range = [...users.getRange({ start: (from ?? ['u']) as string[], end: ['u', MAX], limit: batch + 1 })]
      .filter(({ key }) => !from || JSON.stringify(key) !== JSON.stringify(from)).slice(0, batch);
    users.transactionSync(() => {
      for (const { key, value } of range) {
        const [, app, user] = key as [string, string, string];
        if ((value as UserRecord).d === undefined) users.putSync(touchKey(now, app, user), 1);
      }
      users.putSync(BACKFILL, range.length < batch ? 'done' : (range[range.length - 1].key as unknown[]));
    });
    return range.length;
  }
}
