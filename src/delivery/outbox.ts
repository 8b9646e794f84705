/**
 * The durable outbox: every trigger of an accepted request is committed here (LMDB, synced to
 * disk) before the 202 is sent, and leaves only once its delivery succeeded. It is the queue of
 * both postbacks and bucket exports.
 *
 * Like pg-boss: senders `claimDue` entries, which pushes their `next_at` past a lease; a sender
 * that dies mid-delivery simply lets the lease run out and the entry comes due again (at least
 * once). `settle` records results: ack removes, retry reschedules, kill parks as dead. Wake-ups
 * from `enqueue` only cut latency; senders poll `claimDue` as the guarantee.
 *
 * The schedule is kept per app only ([app_key, next_at, id]): both senders read it app by app,
 * and each schedule change costs two writes instead of four with a global index beside it.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Trigger } from '../schemas/visit.js';
import { migrateGlobalSchedule, state, type EntryKey, type EntryState, type OutboxEntry, type Results, type TriggerStatus } from './outbox-state.js';

export type { EntryKey, EntryState, OutboxEntry, Payload, Results, TriggerStatus } from './outbox-state.js';

type Key = [string, string];
type AppDueKey = [string, number, string];
const MAX = '\uffff';

export class Outbox {
  private readonly root: RootDatabase;
  /**
   * Entry states keyed [app_key, id] so one app's backlog is one range. msgpackr's structures are
   * shared (stored once in the database) rather than repeated in every record: about half the
   * bytes, and cheaper to decode and encode on every claim and result.
   */
  private readonly entries: Database<EntryState, Key>;
  /** Trigger JSON, [app_key, id]: written once at enqueue, read when sent, removed on ack. */
  private readonly bodies: Database<string, Key>;
  /** [app_key, next_at, id] → created_at for every pending entry: the schedule senders poll. */
  private readonly byApp: Database<number, AppDueKey>;
  private readonly wakeups = new Set<() => void>();

  constructor(dataDir: string) {
    this.root = open({ path: path.join(dataDir, 'outbox.mdb'), compression: false });
    this.entries = this.root.openDB<EntryState, Key>({ name: 'states', sharedStructuresKey: Symbol.for('structures') });
    this.bodies = this.root.openDB<string, Key>({ name: 'bodies', encoding: 'string' });
    this.byApp = this.root.openDB<number, AppDueKey>({ name: 'due-by-app' });
    migrateGlobalSchedule(this.root, this.byApp);
  }

  /** Resolves once every trigger is committed to disk: only then may the request be acknowledged. */
  async enqueue(appKey: string, triggers: Trigger[], now = Date.now()): Promise<void> {
    if (triggers.length === 0) return;
    await this.root.transaction(() => {
      for (const trigger of triggers) {
        const id = trigger.data.id;
        this.bodies.put([appKey, id], JSON.stringify(trigger));
        this.putPending({ id, app_key: appKey, status: 'pending', attempts: 0, next_at: now, created_at: now });
      }
    });
    // lmdb-js overlaps the disk flush with later commits: a committed write is visible at once
    // but durable only when `flushed` resolves, and the 202 promises durability. Concurrent
    // requests share one flush, so this costs latency, not throughput.
    await this.root.flushed;
    for (const wake of this.wakeups) wake();
  }

  /**
   * Finds and leases due entries in one transaction: for each [app, limit] of `want`, in order,
   * up to `limit` of the app's entries due at `now` (oldest schedule first), `total` in all.
   * Each is due again `leaseMs` later unless settled first: nobody else gets it unless we die.
   * Entries come back in `want` order, with attempts counted and their bodies.
   */
  async claimDue(want: Iterable<readonly [string, number]>, now: number, leaseMs: number, total = Infinity): Promise<OutboxEntry[]> {
    const out: OutboxEntry[] = [];
    await this.root.transaction(() => {
      for (const [app, limit] of want) {
        const n = Math.min(limit, total - out.length);
        if (n <= 0) continue;
        // Read before writing: the claimed keys move out of the range we would still be reading.
        const keys = [...this.byApp.getKeys({ start: [app] as unknown as AppDueKey, end: [app, now, MAX], limit: n })];
        for (const key of keys) {
          const cur = this.entries.get([app, key[2]]);
          this.byApp.remove(key);
          if (!cur || cur.status !== 'pending' || cur.next_at !== key[1]) {
            if (cur?.status === 'pending') this.byApp.put([app, cur.next_at, cur.id], cur.created_at); // keep the entry's real key
            continue;
          }
          const next = state(cur, now + leaseMs, cur.attempts + 1, cur.first_attempt_at ?? now);
          this.entries.put([app, cur.id], next);
          this.byApp.put([app, next.next_at, cur.id], cur.created_at);
          (next as OutboxEntry).body = this.bodies.get([app, cur.id]) ?? '';
          out.push(next as OutboxEntry);
        }
        if (out.length >= total) break;
      }
    });
    return out;
  }

  /** Writes many sends' results in one transaction; entries gone meanwhile are skipped. */
  async settle(r: Results): Promise<void> {
    await this.root.transaction(() => {
      for (const { app_key, id } of r.acks ?? []) {
        const cur = this.entries.get([app_key, id]);
        if (!cur) continue;
        if (cur.status === 'pending') this.unschedule(cur);
        this.entries.remove([app_key, id]);
        this.bodies.remove([app_key, id]);
      }
      for (const k of r.retries ?? []) {
        this.change(k, (cur) => (cur.status === 'pending' ? { ...state(cur, k.at), last_error: k.error } : { ...cur, next_at: k.at, last_error: k.error }));
      }
      for (const k of r.kills ?? []) this.change(k, (cur) => ({ ...cur, status: 'dead', last_error: k.error }));
    });
  }

  /** Delivered: gone for good. */
  ack(list: EntryKey[]): Promise<void> {
    return this.settle({ acks: list });
  }

  /** Failed this time: due again at `nextAt`. */
  retry(list: EntryKey[], nextAt: number, error: string): Promise<void> {
    return this.settle({ retries: list.map(({ app_key, id }) => ({ app_key, id, at: nextAt, error })) });
  }

  /** Apps with pending entries (due now or later), in key order. */
  pendingApps(): string[] {
    const apps: string[] = [];
    for (let start: unknown[] = []; ;) {
      const [key] = this.byApp.getKeys({ start: start as AppDueKey, limit: 1 });
      if (!key) return apps;
      apps.push(key[0]);
      start = [key[0], MAX]; // past every [app, number, id] of this app
    }
  }

  /** One app's pending entries scheduled after `after` (if given) and no later than `until` (ms), in schedule order. */
  scheduledForApp(appKey: string, after: number | undefined, until: number, limit: number): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    const start = (after === undefined ? [appKey] : [appKey, after, MAX]) as AppDueKey;
    for (const key of this.byApp.getKeys({ start, end: [appKey, until, MAX], limit })) {
      const e = this.entries.get([appKey, key[2]]);
      if (e && e.status === 'pending') out.push(this.withBody(e));
    }
    return out;
  }

  list(appKey: string, status: TriggerStatus, limit = 1000): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const { value } of this.entries.getRange({ start: [appKey], end: [appKey + '\u0000'] })) {
      if (value.status === status) out.push(this.withBody(value));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Requeues an app's dead triggers for immediate delivery; answers how many. */
  async replayDead(appKey: string, now = Date.now()): Promise<number> {
    const dead = this.list(appKey, 'dead', Number.MAX_SAFE_INTEGER);
    await this.root.transaction(() => {
      for (const k of dead) this.change(k, (cur) => ({ ...cur, status: 'pending', attempts: 0, next_at: now, replayed_at: now }));
    });
    if (dead.length) for (const wake of this.wakeups) wake();
    return dead.length;
  }

  /** Entries held, pending and dead. */
  depth(): number {
    return this.entries.getCount();
  }

  pendingCount(): number {
    return this.byApp.getCount();
  }

  /** ms since the oldest pending entry was enqueued (0 when none). */
  oldestPendingAge(now = Date.now()): number {
    let oldest = now;
    for (const { value } of this.byApp.getRange()) oldest = Math.min(oldest, value);
    return now - oldest;
  }

  /** Delivery workers subscribe to cut latency; a polling pass remains the guarantee. */
  onEnqueue(wake: () => void): () => void {
    this.wakeups.add(wake);
    return () => this.wakeups.delete(wake);
  }

  close(): Promise<void> {
    return this.root.close();
  }

  private withBody(e: EntryState): OutboxEntry {
    return { ...e, body: this.bodies.get([e.app_key, e.id]) ?? '' };
  }

  /** Inside a transaction: rewrites one entry's state, moving its schedule key along. */
  private change({ app_key, id }: EntryKey, to: (cur: EntryState) => EntryState): void {
    const cur = this.entries.get([app_key, id]);
    if (!cur) return;
    if (cur.status === 'pending') this.unschedule(cur);
    const next = to(cur);
    if (next.status === 'pending') this.putPending(next);
    else this.entries.put([app_key, id], next);
  }

  private putPending(e: EntryState): void {
    this.entries.put([e.app_key, e.id], e);
    this.byApp.put([e.app_key, e.next_at, e.id], e.created_at);
  }

  private unschedule(e: EntryState): void {
    this.byApp.remove([e.app_key, e.next_at, e.id]);
  }
}
