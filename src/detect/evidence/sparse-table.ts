/**
 * A small learned table per app (footprints by venue type, the counted-venue masses), counted by
 * each thread in memory and merged into LMDB every few stays (store.ts `mergeSparse`): the merge
 * adds this thread's new counts and brings back what the other workers taught, so the table is
 * shared by a server's workers and survives restarts.
 */

export interface SparseSync {
  /** Adds a thread's new sparse counts to the app's stored table `name`; answers the sum. */
  mergeSparse(name: string, app: string, pending: ReadonlyMap<number, number>): Map<number, number>;
}

export class SparseTable {
  private base: Map<number, number>;
  private pending = new Map<number, number>();
  private stays = 0;

  constructor(private readonly name: string, private readonly app: string, private readonly sync: SparseSync) {
    this.base = sync.mergeSparse(name, app, new Map());
  }

  /** The stored count plus what this thread has not merged yet. */
  get(k: number): number { return (this.base.get(k) ?? 0) + (this.pending.get(k) ?? 0); }

  add(k: number, v: number): void { this.pending.set(k, (this.pending.get(k) ?? 0) + v); }

  /** One stay has taught; after `flushEvery` of them, merge with the shared store. */
  stayDone(flushEvery: number): void {
    if (++this.stays < flushEvery) return;
    this.base = this.sync.mergeSparse(this.name, this.app, this.pending);
    this.pending = new Map();
    this.stays = 0;
  }
}

/** Per user store (one per data directory), per table name and app. */
const tables = new WeakMap<SparseSync, Map<string, SparseTable>>();

export function sparseTable(name: string, app: string, sync: SparseSync): SparseTable {
  let byKey = tables.get(sync);
  if (!byKey) tables.set(sync, (byKey = new Map()));
  const key = `${name}\u0000${app}`;
  let t = byKey.get(key);
  if (!t) byKey.set(key, (t = new SparseTable(name, app, sync)));
  return t;
}
