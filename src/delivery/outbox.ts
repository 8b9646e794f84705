/**
 * The durable outbox: every trigger of an accepted request is committed here (LMDB, synced to
 * disk) before the 202 is sent, and leaves only once it has been delivered. Delivery workers
 * claim from it; the admin API lists what is pending or dead.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Trigger } from '../schemas/visit.js';

export type TriggerStatus = 'pending' | 'dead';

export interface OutboxEntry {
  id: string;
  app_key: string;
  trigger: Trigger;
  status: TriggerStatus;
  attempts: number;
  /** ms: when the next attempt is due. */
  next_at: number;
  created_at: number;
  last_error?: string;
}

export class Outbox {
  private readonly root: RootDatabase;
  /** Keyed [app_key, id] so one app's backlog is one range. */
  private readonly entries: Database<OutboxEntry, [string, string]>;
  private readonly wakeups = new Set<() => void>();

  constructor(dataDir: string) {
    this.root = open({ path: path.join(dataDir, 'outbox.mdb'), compression: false });
    this.entries = this.root.openDB<OutboxEntry, [string, string]>({ name: 'entries' });
  }

  /** Resolves once every trigger is committed to disk: only then may the request be acknowledged. */
  async enqueue(appKey: string, triggers: Trigger[], now = Date.now()): Promise<void> {
    if (triggers.length === 0) return;
    await this.root.transaction(() => {
      for (const trigger of triggers) {
        const id = trigger.data.id;
        this.entries.put([appKey, id], { id, app_key: appKey, trigger, status: 'pending', attempts: 0, next_at: now, created_at: now });
      }
    });
    for (const wake of this.wakeups) wake();
  }

  list(appKey: string, status: TriggerStatus, limit = 1000): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const { value } of this.entries.getRange({ start: [appKey], end: [appKey + '\u0000'] })) {
      if (value.status === status) out.push(value);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Requeues an app's dead triggers for immediate delivery; answers how many. */
  async replayDead(appKey: string, now = Date.now()): Promise<number> {
    const dead = this.list(appKey, 'dead', Number.MAX_SAFE_INTEGER);
    await this.root.transaction(() => {
      for (const e of dead) this.entries.put([appKey, e.id], { ...e, status: 'pending', attempts: 0, next_at: now });
    });
    if (dead.length) for (const wake of this.wakeups) wake();
    return dead.length;
  }

  depth(): number {
    return this.entries.getCount();
  }

  /** Delivery workers subscribe to cut latency; a polling pass remains the guarantee. */
  onEnqueue(wake: () => void): () => void {
    this.wakeups.add(wake);
    return () => this.wakeups.delete(wake);
  }

  close(): Promise<void> {
    return this.root.close();
  }
}
