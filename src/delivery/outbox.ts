/**
 * The durable outbox: every trigger of an accepted request is committed here (LMDB, synced to
 * disk) before the 202 is sent, and leaves only once its delivery succeeded. It is the queue of
 * both postbacks and bucket exports.
 *
 * Senders `claimDue` entries: the claim is a lease held in memory (leases.ts), not a write, so it
 * costs a read per entry and a crash forgets it: a restart finds every claimed entry due at its
 * old time, at once. That relies on one process owning the data directory (data-dir-lock.ts) and
 * on claims coming from one Outbox object in it (the delivery worker's). `settle` records
 * results: ack removes, retry reschedules, kill parks as dead; each releases its lease. Wake-ups
 * from `enqueue` only cut latency; senders poll `claimDue` as the guarantee.
 *
 * The schedule is kept per app only ([app_key, next_at, id]): both senders read it app by app,
 * and each schedule change costs two writes instead of four with a global index beside it.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Trigger } from '../schemas/visit.js';
import { Leases } from './leases.js';
import { OutboxIndex, ownerOf } from './outbox-index.js';
import { migrateGlobalSchedule, state, type EntryKey, type EntryState, type ListedEntry, type OutboxEntry, type Results, type TriggerStatus } from './outbox-state.js';
import type { Removed, TriggerQueue } from '../state/outbox-types.js';
import { clock } from '../time/clock.js';

export type { EntryKey, EntryState, ListedEntry, OutboxEntry, Payload, Results, TriggerStatus } from './outbox-state.js';
export type { TriggerQueue } from '../state/outbox-types.js';

type Key = [string, string];
type AppDueKey = [string, number, string];
const MAX = '\uffff';
const EMPTY = Buffer.alloc(0);

export class Outbox implements TriggerQueue {
  private readonly root: RootDatabase;
  /**
   * Entry states keyed [app_key, id] so one app's backlog is one range. msgpackr's structures are
   * shared (stored once in the database) rather than repeated in every record: about half the
   * bytes, and cheaper to decode and encode on every claim and result.
   */
  private readonly entries: Database<EntryState, Key>;
  /**
   * Trigger JSON as UTF-8 bytes, [app_key, id]: written once at enqueue, read when sent, removed
   * on ack. Bytes rather than a string: the sender signs and sends these very bytes, so nothing
   * is decoded to a string and encoded back on each attempt. (Records written as strings by
   * earlier versions are the same UTF-8 bytes.)
   */
  private readonly bodies: Database<Buffer, Key>;
  /** [app_key, next_at, id] → created_at for every pending entry: the schedule senders poll. */
  private readonly byApp: Database<number, AppDueKey>;
  private readonly wakeups = new Set<() => void>();
  /** What this object's claims hold: only the delivery worker's Outbox ever has any. */
  private readonly leases = new Leases();
  /** Who each trigger is about and when dead ones died: erase, app deletion and retention read it. */
  readonly index: OutboxIndex;

  constructor(dataDir: string) {
    this.root = open({ path: path.join(dataDir, 'outbox.mdb'), compression: false });
    this.entries = this.root.openDB<EntryState, Key>({ name: 'states', sharedStructuresKey: Symbol.for('structures') });
    this.bodies = this.root.openDB<Buffer, Key>({ name: 'bodies', encoding: 'binary' });
    this.byApp = this.root.openDB<number, AppDueKey>({ name: 'due-by-app' });
    migrateGlobalSchedule(this.root, this.byApp);
    this.index = new OutboxIndex(this.root, { entries: this.entries, bodies: this.bodies, byApp: this.byApp });
  }

  /** Resolves once every trigger is committed to disk: only then may the request be acknowledged. */
  async enqueue(appKey: string, triggers: Trigger[], now = clock.now()): Promise<void> {
    if (triggers.length === 0) return;
    await this.root.transaction(() => {
      for (const trigger of triggers) {
        const id = trigger.data.id;
        this.bodies.put([appKey, id], Buffer.from(JSON.stringify(trigger)));
        this.putPending({ id, app_key: appKey, status: 'pending', attempts: 0, next_at: now, created_at: now });
        this.index.added(appKey, id, ownerOf(trigger));
      }
    });
    // lmdb-js overlaps the disk flush with later commits: a committed write is visible at once
    // but durable only when `flushed` resolves, and the 202 promises durability. Concurrent
    // requests share one flush, so this costs latency, not throughput.
    await this.root.flushed;
    for (const wake of this.wakeups) wake();
  }

  /**
   * Finds and leases due entries: for each [app, limit] of `want`, in order, up to `limit` of the
   * app's entries due at `now` (oldest schedule first) that no claim holds, `total` in all. Reads
   * only: the lease is kept in memory until the entry is settled. Entries come back in `want`
   * order, with this attempt counted (written if it is retried or killed) and their bodies.
   */
  claimDue(want: Iterable<readonly [string, number]>, now: number, total = Infinity): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const [app, limit] of want) {
      const n = Math.min(limit, total - out.length);
      if (n <= 0) continue;
      const from = this.leases.scanStart(app, now);
      const start = (from === undefined ? [app] : [app, from]) as unknown as AppDueKey;
      let taken = 0;
      let last: number | undefined;
      for (const key of this.byApp.getKeys({ start, end: [app, now, MAX] })) {
        last = key[1];
        const id = key[2];
        if (this.leases.has(app, id)) continue;
        const cur = this.entries.get([app, id]);
        if (!cur || cur.status !== 'pending' || cur.next_at !== key[1]) continue; // a stale key: not this entry's schedule
        const claim = { attempts: cur.attempts + 1, first_attempt_at: cur.first_attempt_at ?? now, next_at: cur.next_at };
        this.leases.take(app, id, claim);
        const e = state(cur, cur.next_at, claim.attempts, claim.first_attempt_at) as OutboxEntry;
        e.body = this.bodies.get([app, id]) ?? EMPTY;
        out.push(e);
        if (++taken >= n) break;
      }
      if (last !== undefined) this.leases.scanned(app, last);
      if (out.length >= total) break;
    }
    return out;
  }

  /**
   * Writes many sends' results in one transaction; entries gone meanwhile are skipped. The
   * leases are released once it is committed (a claim before that would read the old state), or
   * once it failed: then the entries are sent again, which at least once allows.
   */
  async settle(r: Results): Promise<void> {
    try {
      await this.write(r);
    } finally {
      for (const k of r.acks ?? []) this.leases.release(k.app_key, k.id);
      for (const k of r.retries ?? []) this.leases.release(k.app_key, k.id);
      for (const k of r.kills ?? []) this.leases.release(k.app_key, k.id);
    }
  }

  /** Entries held by claims of this object (tests, gauges). */
  leased(): number {
    return this.leases.size;
  }

  private write(r: Results): Promise<void> {
    return this.root.transaction(() => {
      for (const { app_key, id } of r.acks ?? []) {
        // Held by our claim, the entry is as the claim read it (only this object writes leased
        // entries): its three records go without reading and decoding its state first.
        const claim = this.leases.get(app_key, id);
        if (claim) {
          this.byApp.remove([app_key, claim.next_at, id]);
          this.entries.remove([app_key, id]);
          this.bodies.remove([app_key, id]);
          this.index.removed(app_key, id);
          continue;
        }
        const cur = this.entries.get([app_key, id]);
        if (!cur) continue;
        if (cur.status === 'pending') this.unschedule(cur);
        this.entries.remove([app_key, id]);
        this.bodies.remove([app_key, id]);
        this.index.removed(app_key, id, cur.dead_at);
      }
      for (const k of r.retries ?? []) {
        const claim = this.leases.get(k.app_key, k.id);
        this.change(k, (cur) => (cur.status === 'pending'
          ? { ...state(cur, k.at, claim?.attempts, claim?.first_attempt_at ?? cur.first_attempt_at), last_error: k.error }
          : { ...cur, next_at: k.at, last_error: k.error }));
      }
      for (const k of r.kills ?? []) {
        const claim = this.leases.get(k.app_key, k.id);
        const attempted = claim ? { attempts: claim.attempts, first_attempt_at: claim.first_attempt_at } : {};
        this.change(k, (cur) => ({ ...cur, ...attempted, status: 'dead', last_error: k.error, dead_at: cur.dead_at ?? clock.now() }));
      }
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

  /** For people (the admin listing): states with their trigger JSON as text. */
  list(appKey: string, status: TriggerStatus, limit = 1000): ListedEntry[] {
    const out: ListedEntry[] = [];
    for (const { value } of this.entries.getRange({ start: [appKey], end: [appKey + '\u0000'] })) {
      if (value.status === status) out.push({ ...value, body: this.bodies.get([appKey, value.id])?.toString() ?? '' });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Requeues an app's dead triggers for immediate delivery; answers how many. */
  async replayDead(appKey: string, now = clock.now()): Promise<number> {
    const dead: EntryKey[] = [];
    for (const { value } of this.entries.getRange({ start: [appKey], end: [appKey + '\u0000'] })) if (value.status === 'dead') dead.push(value);
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
  oldestPendingAge(now = clock.now()): number {
    let oldest = now;
    for (const { value } of this.byApp.getRange()) oldest = Math.min(oldest, value);
    return now - oldest;
  }

  /** Delivery workers subscribe to cut latency; a polling pass remains the guarantee. */
  onEnqueue(wake: () => void): () => void {
    this.wakeups.add(wake);
    return () => this.wakeups.delete(wake);
  }

  eraseUser(app: string, user: string): Promise<Removed> {
    return this.index.eraseUser(app, user);
  }

  deleteApp(app: string, max?: number): Promise<number> {
    return this.index.deleteApp(app, max);
  }

  purgeDead(cutoff: number, max: number): Promise<number> {
    return this.index.purgeDead(cutoff, max);
  }

  async userTriggers(app: string, user: string): Promise<Array<{ state: EntryState; trigger: unknown }>> {
    return this.index.idsOf(app, user).flatMap((id) => this.index.entry(app, id) ?? []);
  }

  close(): Promise<void> {
    return this.root.close();
  }

  /** Inside a transaction: rewrites one entry's state, moving its schedule key along. */
  private change({ app_key, id }: EntryKey, to: (cur: EntryState) => EntryState): void {
    const cur = this.entries.get([app_key, id]);
    if (!cur) return;
    if (cur.status === 'pending') this.unschedule(cur);
    const next = to(cur);
    if (cur.status === 'dead' && next.status !== 'dead') { this.index.revived(app_key, id, cur.dead_at); delete next.dead_at; }
    if (next.status === 'dead' && cur.status !== 'dead') this.index.died(app_key, id, next.dead_at!);
    if (next.status === 'pending') this.putPending(next);
    else this.entries.put([app_key, id], next);
  }

  private putPending(e: EntryState): void {
    this.entries.put([e.app_key, e.id], e);
    this.byApp.put([e.app_key, e.next_at, e.id], e.created_at);
    this.leases.scheduled(e.app_key, e.next_at);
  }

  private unschedule(e: EntryState): void {
    this.byApp.remove([e.app_key, e.next_at, e.id]);
  }
}
