/**
 * A node's copy of the `dwell-learned` bucket, in an LMDB environment of its own that all the
 * node's threads open (one per process, in the temp directory, rebuilt at every start): the main
 * thread fills it and keeps it current (learned.ts, learned-fleet.ts), every detection thread
 * reads it, and the threads' merges wait in it until the node hands them on.
 *
 * A record, by the bucket's key: [revision, stored value, view, pending, in flight]. Pending is
 * what the node's threads learned since the last write, summed (learned/sums.ts); in flight is
 * what the write under way adds; the view is the stored value plus both, what a thread reads (left
 * out while there is neither). Keys with something pending are listed in a second table, so a
 * write takes them without scanning the copy. Every change is one LMDB transaction, so merges of
 * several threads add up exactly.
 */
import { rmSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { plusOf } from '../../learned/sums.js';
import { untoken } from './kv.js';

type Rec = [revision: number, stored: unknown, view?: unknown, pending?: unknown, inFlight?: unknown];

/** Set by the hub once the copy holds what the bucket held when it began following it. */
const READY = '\u0000ready';

/** The kind of a bucket key (`<kind>.<app>.<name>`, kind as a token). */
export const kindOf = (key: string): string => untoken(key.slice(0, key.indexOf('.')));

export interface Change { key: string; revision: number; value: unknown | undefined }

export class LearnedCopy {
  private readonly root: RootDatabase;
  private readonly values: Database<Rec, string>;
  private readonly dirty: Database<1, string>;
  private renewedAt = 0;

  constructor(readonly path: string, fresh: boolean) {
    if (fresh) rmSync(path, { recursive: true, force: true });
    // A cache rebuilt at every start: no fsync.
    this.root = open({ path, noSync: true, maxDbs: 4 });
    this.values = this.root.openDB<Rec, string>({ name: 'values' });
    this.dirty = this.root.openDB<1, string>({ name: 'dirty' });
  }

  get ready(): boolean { return this.fresh().values.get(READY) !== undefined; }
  markReady(): void { this.values.putSync(READY, [0, 1]); }

  /**
   * Reads see the other threads' commits once the read snapshot is renewed; lmdb-js renews it on
   * a timer, which a busy detection worker seldom runs (pipeline/loop-turn.ts): renewed here at
   * most every few milliseconds instead.
   */
  private fresh(): this {
    const t = performance.now();
    if (t - this.renewedAt > 5) { this.root.resetReadTxn(); this.renewedAt = t; }
    return this;
  }

  /** The value as the node knows it: stored plus what its threads added since. */
  view<V>(key: string): V | undefined {
    const r = this.fresh().values.get(key);
    return (r ? (r.length > 2 && r[2] !== undefined ? r[2] : r[1]) : undefined) as V | undefined;
  }

  /**
   * Adds the merges to the keys' pending sums, in one transaction. A merge whose function leaves
   * the current view as it is (a settled value) adds nothing.
   */
  addPending(merges: ReadonlyArray<{ key: string; fn: (old: unknown) => unknown }>): void {
    this.root.transactionSync(() => {
      for (const { key, fn } of merges) {
        const r = this.values.get(key) ?? [0, undefined];
        const current = r.length > 2 && r[2] !== undefined ? r[2] : r[1];
        if (fn(current) === undefined) continue;
        const pending = fn(r[3]);
        if (pending === undefined) continue;
        this.values.putSync(key, withView(key, [r[0], r[1], undefined, pending, r[4]]));
        this.dirty.putSync(key, 1);
      }
    });
  }

  /**
   * Changes from the bucket or the fleet's writer: a newer revision replaces the stored value; a
   * removal (value undefined) drops what was pending too. `confirmed`: keys whose sum in flight
   * the changes hold, no longer added to the view.
   */
  apply(changes: readonly Change[], confirmed: readonly string[] = []): void {
    this.root.transactionSync(() => {
      for (const c of changes) {
        const r = this.values.get(c.key);
        if (c.value === undefined) { this.values.removeSync(c.key); this.dirty.removeSync(c.key); continue; }
        if (r && r[0] >= c.revision) continue;
        this.values.putSync(c.key, withView(c.key, [c.revision, c.value, undefined, r?.[3], r?.[4]]));
      }
      for (const key of confirmed) {
        const r = this.values.get(key);
        if (r && r[4] !== undefined) this.values.putSync(key, withView(key, [r[0], r[1], undefined, r[3], undefined]));
      }
    });
  }

  /** The stored value and its revision (0: none), for a sum another node sent. */
  stored(key: string): { revision: number; stored: unknown } {
    const r = this.fresh().values.get(key);
    return { revision: r?.[0] ?? 0, stored: r?.[1] };
  }

  /** Moves every pending sum into flight: what one write per key now sends (the new part only), with the stored value and revision it starts from. */
  takePending(): Array<{ key: string; revision: number; stored: unknown; delta: unknown }> {
    return this.root.transactionSync(() => {
      const out: Array<{ key: string; revision: number; stored: unknown; delta: unknown }> = [];
      for (const key of [...this.dirty.getKeys()]) {
        this.dirty.removeSync(key);
        const r = this.values.get(key);
        if (!r || r[3] === undefined) continue;
        // Only what is new goes out: a sum still in flight (handed to the writer, not yet seen
        // stored) was sent already, and sending it again would count it twice.
        const inFlight = r[4] === undefined ? r[3] : plusOf(kindOf(key))(r[4], r[3]) ?? r[4];
        this.values.putSync(key, withView(key, [r[0], r[1], undefined, undefined, inFlight]));
        out.push({ key, revision: r[0], stored: r[1], delta: r[3] });
      }
      return out;
    });
  }

  /** The write of a key's sum ended: stored as `value` at `revision` (or settled, value undefined), or failed and pending again. */
  landed(key: string, outcome: { revision: number; value: unknown } | 'failed' | 'settled'): void {
    this.root.transactionSync(() => {
      const r = this.values.get(key);
      if (!r || r[4] === undefined) return;
      if (outcome === 'failed') {
        const plus = plusOf(kindOf(key));
        const pending = r[3] === undefined ? r[4] : plus(r[4], r[3]) ?? r[4];
        this.values.putSync(key, withView(key, [r[0], r[1], undefined, pending, undefined]));
        this.dirty.putSync(key, 1);
        return;
      }
      const newer = outcome !== 'settled' && outcome.revision > r[0];
      this.values.putSync(key, withView(key, newer ? [outcome.revision, outcome.value, undefined, r[3], undefined] : [r[0], r[1], undefined, r[3], undefined]));
    });
  }

  /** Every key of the app (bucket keys `<kind>.<app>.<name>`), dropped with what was pending for it. */
  dropApp(app: string): void {
    this.root.transactionSync(() => {
      for (const key of [...this.values.getKeys()]) {
        if (key.split('.')[1] !== app) continue;
        this.values.removeSync(key);
        this.dirty.removeSync(key);
      }
    });
  }

  async close(remove: boolean): Promise<void> {
    await this.root.close();
    if (remove) rmSync(this.path, { recursive: true, force: true });
  }
}

/** The record with its view: the stored value plus what is in flight and pending (a settled value stays as it is). */
function withView(key: string, r: Rec): Rec {
  const [, stored, , pending, inFlight] = r;
  if (pending === undefined && inFlight === undefined) return [r[0], stored];
  const plus = plusOf(kindOf(key));
  let v = stored;
  for (const d of [inFlight, pending]) if (d !== undefined) v = plus(v, d) ?? v;
  return [r[0], stored, v, pending, inFlight];
}
