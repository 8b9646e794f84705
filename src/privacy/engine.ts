/**
 * The privacy side of each state engine: what erase, export and app deletion reach of a user's
 * records, and how retention runs. Embedded: the LMDB environments, swept on a thread of their
 * own (sweep-thread.ts). Cluster: the cluster's state, users swept by the lease holder (cluster.ts)
 * and dead triggers on this thread (JetStream purges, not batches holding a local write lock).
 * The shell picks one (server/state.ts); service.ts runs whichever it is given.
 */
import type { Metrics } from '../http/metrics.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import type { GeofenceStore } from '../geofences/store.js';
import { log } from '../log.js';
import { openPrivacyStores } from './stores.js';
import type { UserRecords } from './kinds.js';
import { RetentionSweeper, type SweepCounts } from './retention.js';
import { startSweepThread } from './sweep-thread.js';
import { clusterRecords, sweepClusterUsers, type ClusterPrivacy } from './cluster.js';

export interface RetentionPlan { userRetentionMs: number; deadRetentionMs: number; intervalMs: number; slotMs: number }

export interface PrivacyContext {
  outbox: TriggerQueue; retention: RetentionPlan; metrics: Metrics; busy?: () => boolean; logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

/** What an engine runs for privacy: its records and its retention. */
export interface PrivacyRun {
  records: UserRecords;
  removed(): SweepCounts;
  /** Around every request: the sweep keeps to the moments none is in flight. */
  enter(): void;
  leave(): void;
  close(): Promise<void>;
}

export type PrivacyEngine = (ctx: PrivacyContext) => PrivacyRun;

export function embeddedPrivacy(dataDir: string, geofences: GeofenceStore): PrivacyEngine {
  return (ctx) => {
    const r = ctx.retention;
    const stores = openPrivacyStores(dataDir, geofences, ctx.outbox, r.slotMs);
    const sweeping = r.userRetentionMs > 0 || r.deadRetentionMs > 0;
    const thread = sweeping ? startSweepThread({ dataDir, logLevel: ctx.logLevel, ...r }, ctx.metrics) : null;
    const sweeper = thread ? null : new RetentionSweeper(stores, { ...r, metrics: ctx.metrics, busy: ctx.busy }).start();
    return {
      records: stores.records,
      removed: () => thread?.removed ?? sweeper!.removed,
      enter: () => thread?.enter(),
      leave: () => thread?.leave(),
      async close() {
        await (thread ?? sweeper!).stop();
        await stores.users.close();
      },
    };
  };
}

export function clusterPrivacy(c: ClusterPrivacy): PrivacyEngine {
  return (ctx) => {
    const r = ctx.retention;
    // Users: the lease holder, every quarter of the retention, at most once a minute.
    const timer = r.userRetentionMs > 0 ? setInterval(() => {
      sweepClusterUsers(c, r.userRetentionMs).then((n) => { if (n) log.info('retention: users removed', { users: n }); },
        (err) => log.warn('cluster retention sweep skipped', { error: String((err as Error)?.message ?? err) }));
    }, Math.max(1000, Math.min(60_000, r.userRetentionMs / 4))) : null;
    timer?.unref();
    const sweeper = new RetentionSweeper({ outbox: ctx.outbox }, { ...r, userRetentionMs: 0, metrics: ctx.metrics, busy: ctx.busy }).start();
    return {
      records: clusterRecords(c),
      removed: () => sweeper.removed,
      enter: () => {},
      leave: () => {},
      async close() {
        if (timer) clearInterval(timer);
        await sweeper.stop();
      },
    };
  };
}
