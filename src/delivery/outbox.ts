/**
 * The durable outbox: every trigger of an accepted request is committed here (LMDB, synced to
 * disk) before the 202 is sent, and leaves only once its delivery succeeded. It is the queue of
 * both postbacks and bucket exports.
 *
 * Like pg-boss: senders `claim` due entries, which pushes their `next_at` past a lease; a sender
 * that dies mid-delivery simply lets the lease run out and the entry comes due again (at least
 * once). `ack` removes, `retry` reschedules, `kill` parks as dead. Wake-ups from `enqueue` only
 * cut latency; senders poll `due` as the guarantee.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Trigger } from '../schemas/visit.js';

export type TriggerStatus = 'pending' | 'dead';

/** What a sender sends: the trigger's id and its JSON exactly as serialised once, at enqueue. */
export interface Payload { id: string; body: string }

/** The small, often rewritten part of an entry; the body is stored apart and never rewritten. */
export interface EntryState {
  id: string;
  app_key: string;
  status: TriggerStatus;
  attempts: number;
  /** ms: when the entry is next due (after a claim, when its lease runs out). */
  next_at: number;
  created_at: number;
  /** ms of the first delivery attempt, for the 202 → first attempt metric. */
  first_attempt_at?: number;
  /** ms of the last replay of a dead entry: its retry window starts again from here. */
  replayed_at?: number;
  last_error?: string;
}

export interface OutboxEntry extends EntryState, Payload {}

type Key = [string, string];
type DueKey = [number, string, string];
type AppDueKey = [string, number, string];

export class Outbox {
  private readonly root: RootDatabase;
  /** Entry states keyed [app_key, id] so one app's backlog is one range. */
  private readonly entries: Database<EntryState, Key>;
  /** Trigger JSON, [app_key, id]: written once at enqueue, read when sent, removed on ack. */
  private readonly bodies: Database<string, Key>;
  /** [next_at, app_key, id] → created_at for every pending entry: the schedule senders poll. */
  private readonly due_: Database<number, DueKey>;
  /**
   * The same schedule per app, [app_key, next_at, id]: a sender that caps each app reads only
   * the apps it has room for, instead of scanning past the backlog of one at its cap.
   */
  private readonly byApp: Database<number, AppDueKey>;
  private readonly wakeups = new Set<() => void>();

  constructor(dataDir: string) {
    this.root = open({ path: path.join(dataDir, 'outbox.mdb'), compression: false });
    this.entries = this.root.openDB<EntryState, Key>({ name: 'states' });
    this.bodies = this.root.openDB<string, Key>({ name: 'bodies', encoding: 'string' });
    this.due_ = this.root.openDB<number, DueKey>({ name: 'due' });
    this.byApp = this.root.openDB<number, AppDueKey>({ name: 'due-by-app' });
    // An outbox written before the per-app index existed: build it once.
    if (this.byApp.getCount() === 0 && this.due_.getCount() > 0) {
      this.root.transactionSync(() => {
        for (const { key, value } of this.due_.getRange()) this.byApp.put([key[1], key[0], key[2]], value);
      });
    }
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

  /** Pending entries due at `now`, oldest schedule first; `skip` filters apps the caller cannot take now. */
  due(now: number, limit: number, skip?: (appKey: string) => boolean): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const key of this.due_.getKeys({ end: [now, '\uffff', '\uffff'] as DueKey })) {
      const [, appKey, id] = key as DueKey;
      if (skip?.(appKey)) continue;
      const e = this.entries.get([appKey, id]);
      if (e && e.status === 'pending') out.push(this.withBody(e));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Pending entries scheduled after `after` and no later than `until` (ms), in schedule order. */
  scheduled(after: number, until: number, limit: number): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const key of this.due_.getKeys({ start: [after, '\uffff', '\uffff'] as DueKey, end: [until, '\uffff', '\uffff'] as DueKey })) {
      const [, appKey, id] = key as DueKey;
      const e = this.entries.get([appKey, id]);
      if (e && e.status === 'pending') out.push(this.withBody(e));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Apps with pending entries (due now or later), in key order. */
  pendingApps(): string[] {
    const apps: string[] = [];
    for (let start: unknown[] = []; ;) {
      const [key] = this.byApp.getKeys({ start: start as AppDueKey, limit: 1 });
      if (!key) return apps;
      apps.push(key[0]);
      start = [key[0], '\uffff']; // past every [app, number, id] of this app
    }
  }

  /** One app's entries due at `now`, oldest schedule first. */
  dueForApp(appKey: string, now: number, limit: number): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    if (limit <= 0) return out;
    for (const key of this.byApp.getKeys({ start: [appKey] as unknown as AppDueKey, end: [appKey, now, '\uffff'] })) {
      const e = this.entries.get([appKey, key[2]]);
      if (e && e.status === 'pending') out.push(this.withBody(e));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Leases the entries for `leaseMs`: nobody else gets them unless the holder dies. */
  async claim(list: OutboxEntry[], leaseMs: number, now = Date.now()): Promise<OutboxEntry[]> {
    const claimed: OutboxEntry[] = [];
    const bodyOf = new Map(list.map((e) => [e.app_key + '\u0000' + e.id, e.body]));
    await this.root.transaction(() => {
      for (const e of list) {
        const cur = this.entries.get([e.app_key, e.id]);
        if (!cur || cur.status !== 'pending' || cur.next_at > now) continue; // someone else holds it
        this.unschedule(cur);
        const next: EntryState = { ...cur, next_at: now + leaseMs, attempts: cur.attempts + 1, first_attempt_at: cur.first_attempt_at ?? now };
        this.putPending(next);
        claimed.push({ ...next, body: bodyOf.get(cur.app_key + '\u0000' + cur.id)! });
      }
    });
    return claimed;
  }

  /** Delivered: gone for good. */
  async ack(list: Array<Pick<OutboxEntry, 'app_key' | 'id'>>): Promise<void> {
    await this.root.transaction(() => {
      for (const { app_key, id } of list) {
        const cur = this.entries.get([app_key, id]);
        if (!cur) continue;
        if (cur.status === 'pending') this.unschedule(cur);
        this.entries.remove([app_key, id]);
        this.bodies.remove([app_key, id]);
      }
    });
  }

  /** Failed this time: due again at `nextAt`. */
  async retry(list: Array<Pick<OutboxEntry, 'app_key' | 'id'>>, nextAt: number, error: string): Promise<void> {
    await this.update(list, (cur) => ({ ...cur, next_at: nextAt, last_error: error }));
  }

  /** Given up: kept as dead, listed and replayable, never retried on its own. */
  async kill(list: Array<Pick<OutboxEntry, 'app_key' | 'id'>>, error: string): Promise<void> {
    await this.update(list, (cur) => ({ ...cur, status: 'dead', last_error: error }));
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
    await this.update(dead, (cur) => ({ ...cur, status: 'pending', attempts: 0, next_at: now, replayed_at: now, last_error: cur.last_error }));
    if (dead.length) for (const wake of this.wakeups) wake();
    return dead.length;
  }

  /** Entries held, pending and dead. */
  depth(): number {
    return this.entries.getCount();
  }

  pendingCount(): number {
    return this.due_.getCount();
  }

  /** ms since the oldest pending entry was enqueued (0 when none). */
  oldestPendingAge(now = Date.now()): number {
    let oldest = now;
    for (const { value } of this.due_.getRange()) oldest = Math.min(oldest, value);
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

  private async update(list: Array<Pick<OutboxEntry, 'app_key' | 'id'>>, change: (cur: EntryState) => EntryState): Promise<void> {
    await this.root.transaction(() => {
      for (const { app_key, id } of list) {
        const cur = this.entries.get([app_key, id]);
        if (!cur) continue;
        if (cur.status === 'pending') this.unschedule(cur);
        const next = change(cur);
        if (next.status === 'pending') this.putPending(next);
        else this.entries.put([app_key, id], next);
      }
    });
  }

  private putPending(e: EntryState): void {
    this.entries.put([e.app_key, e.id], e);
    this.due_.put([e.next_at, e.app_key, e.id], e.created_at);
    this.byApp.put([e.app_key, e.next_at, e.id], e.created_at);
  }

  private unschedule(e: EntryState): void {
    this.due_.remove([e.next_at, e.app_key, e.id]);
    this.byApp.remove([e.app_key, e.next_at, e.id]);
  }
}
