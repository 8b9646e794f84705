/**
 * The outbox's privacy indexes, in the outbox's own environment so they are written in the same
 * transactions as the entries they index:
 * - by-user [app, user, id] → 1 and owners [app, id] → user: an erase reads one user's range
 *   instead of scanning every trigger. The user is the identity rule's (users/identity.ts) applied
 *   to the trigger's user_info, so it matches the key of the user's record.
 * - dead-by-time [dead_at, app, id] → 1: the dead-trigger retention sweep reads only what is due.
 * The Outbox calls `added`, `died`, `revived` and `removed` inside its transactions; erase, app
 * deletion and the retention sweep remove entries through `purge`, so every record of an entry
 * (state, body, schedule key, index keys) leaves together.
 */
import type { Database, RootDatabase } from 'lmdb';
import { userOf } from '../users/identity.js';
import type { EntryState } from './outbox-state.js';
import { clock } from '../time/clock.js';

type Key = [string, string];
const MAX = '\uffff';
const BUILT = 'privacy-indexes-built';

export interface OutboxDbs {
  entries: Database<EntryState, Key>;
  bodies: Database<Buffer, Key>;
  byApp: Database<number, [string, number, string]>;
}

/** Who a trigger is about: the same key as their user record, null when anonymous. */
export function ownerOf(trigger: { data?: { user_info?: { user_id?: string | null; device_id?: string | null } } }): string | null {
  const u = trigger.data?.user_info;
  return u ? userOf({ advertising_id: u.device_id ?? undefined, user_id: u.user_id ?? undefined }) : null;
}

export interface Removed { pending: number; dead: number }

export class OutboxIndex {
  private readonly byUser: Database<1, [string, string, string]>;
  private readonly owners: Database<string, Key>;
  private readonly deadByTime: Database<1, [number, string, string]>;
  private readonly meta: Database<number, string>;

  constructor(private readonly root: RootDatabase, private readonly dbs: OutboxDbs) {
    this.byUser = root.openDB({ name: 'by-user' });
    this.owners = root.openDB({ name: 'owners' });
    this.deadByTime = root.openDB({ name: 'dead-by-time' });
    this.meta = root.openDB({ name: 'privacy-meta' });
    this.build();
  }

  added(app: string, id: string, user: string | null): void {
    if (user === null) return;
    this.owners.put([app, id], user);
    this.byUser.put([app, user, id], 1);
  }

  died(app: string, id: string, at: number): void {
    this.deadByTime.put([at, app, id], 1);
  }

  revived(app: string, id: string, deadAt: number | undefined): void {
    if (deadAt !== undefined) this.deadByTime.remove([deadAt, app, id]);
  }

  /** The entry left the outbox (delivered, erased, purged): its index keys go with it. */
  removed(app: string, id: string, deadAt?: number): void {
    const user = this.owners.get([app, id]);
    if (user !== undefined) {
      this.byUser.remove([app, user, id]);
      this.owners.remove([app, id]);
    }
    this.revived(app, id, deadAt);
  }

  /** Trigger ids of one user of one app: one key range. */
  idsOf(app: string, user: string): string[] {
    return [...this.byUser.getKeys({ start: [app, user, ''], end: [app, user, MAX] })].map((k) => k[2]);
  }

  /** An entry's state and its trigger, for the user's export. */
  entry(app: string, id: string): { state: EntryState; trigger: unknown } | undefined {
    const state = this.dbs.entries.get([app, id]);
    if (!state) return undefined;
    const body = this.dbs.bodies.get([app, id]);
    return { state, trigger: body ? JSON.parse(body.toString()) : null };
  }

  /** Removes one user's triggers, pending and dead. A sender's lease on one does not stop it (see routes.ts). */
  async eraseUser(app: string, user: string): Promise<Removed> {
    const ids = this.idsOf(app, user);
    if (ids.length === 0) return { pending: 0, dead: 0 };
    const out = await this.root.transaction(() => this.purge(app, ids));
    await this.root.flushed;
    return out;
  }

  /** Removes up to `max` of an app's entries; answers how many (call again until 0). */
  async deleteApp(app: string, max = 10_000): Promise<number> {
    const ids = [...this.dbs.entries.getKeys({ start: [app, ''], end: [app, MAX], limit: max })].map((k) => k[1]);
    if (ids.length === 0) return 0;
    await this.root.transaction(() => this.purge(app, ids));
    await this.root.flushed;
    return ids.length;
  }

  /** Removes up to `max` triggers that died at or before `cutoff` (ms); answers how many. */
  async purgeDead(cutoff: number, max: number): Promise<number> {
    const due = [...this.deadByTime.getKeys({ start: [0, '', ''], end: [cutoff, MAX, MAX], limit: max })];
    if (due.length === 0) return 0;
    let n = 0;
    await this.root.transaction(() => {
      for (const [at, app, id] of due) {
        const cur = this.dbs.entries.get([app, id]);
        if (cur?.status === 'dead' && (cur.dead_at ?? at) <= cutoff) n += this.purge(app, [id]).dead;
        else this.deadByTime.remove([at, app, id]); // replayed or gone since: a stale key
      }
    });
    return n;
  }

  /** Inside a transaction: every record of these entries goes. */
  private purge(app: string, ids: string[]): Removed {
    const out: Removed = { pending: 0, dead: 0 };
    for (const id of ids) {
      const cur = this.dbs.entries.get([app, id]);
      if (cur?.status === 'pending') { this.dbs.byApp.remove([app, cur.next_at, id]); out.pending++; }
      if (cur?.status === 'dead') out.dead++;
      this.dbs.entries.remove([app, id]);
      this.dbs.bodies.remove([app, id]);
      this.removed(app, id, cur?.dead_at);
    }
    return out;
  }

  /**
   * Outboxes written before these indexes existed: every entry is indexed once, at open (dead
   * ones as dying now, so their retention starts today).
   */
  private build(): void {
    if (this.meta.get(BUILT) !== undefined) return;
    const now = clock.now();
    this.root.transactionSync(() => {
      if (this.meta.get(BUILT) !== undefined) return; // the other thread's Outbox got there first
      for (const { key, value } of this.dbs.entries.getRange()) {
        const body = this.dbs.bodies.get(key);
        let user: string | null = null;
        try { user = body ? ownerOf(JSON.parse(body.toString())) : null; } catch { /* unreadable: no owner */ }
        this.added(key[0], key[1], user);
        if (value.status === 'dead') this.died(key[0], key[1], value.dead_at ?? now);
      }
      this.meta.put(BUILT, now);
    });
  }
}
