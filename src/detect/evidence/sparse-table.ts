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

/**
 * Per user store (one per data directory), per table name, per app. Nested maps, not one keyed by
 * `name + app`: the tables are looked up per candidate venue (some 100 times a request), and a key
 * built per lookup was a string to allocate, flatten and hash each time (1.3 % of the worker's
 * task by itself, bench:profile; bench:instructions has the count).
 */
const tables = new WeakMap<SparseSync, Map<string, Map<string, SparseTable>>>();

export function sparseTable(name: string, app: string, sync: SparseSync): SparseTable {
  let byName = tables.get(sync);
  if (!byName) tables.set(sync, (byName = new Map()));
  let byApp = byName.get(name);
  if (!byApp) byName.set(name, (byApp = new Map()));
  let t = byApp.get(app);
  if (!t) byApp.set(app, (t = new SparseTable(name, app, sync)));
  return t;
}
