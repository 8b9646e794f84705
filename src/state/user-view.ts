/**
 * The synchronous UserStore that detection reads and writes (users/store.ts), in cluster mode:
 * one per detection thread, over a record fetched before the run and the thread's copy of the
 * learned values (state/nats/learned.ts).
 *
 * Detection is pure and synchronous; the cluster is neither. So the pipeline fetches the user's
 * record, `run`s detection against this view (which collects what it would write instead of
 * writing), stores the record with the revision it read, and only then sends what was learned.
 * When the user's record changed meanwhile, the run is thrown away and done again on the newer
 * record: nothing it learned was sent. Priors and sparse tables (detect/evidence/*) merge a
 * thread's counts every few stays and key their tables by this object, so it lives as long as
 * the thread; their merges are additions and are sent with the next request's writes.
 */
import type { LearnedState } from './types.js';
import { beaconWith, flatSparse, placedAt, pooledWith, priorsPlus, sparsePlus, type ApObservation } from '../learned/tables.js';
import type { ApPlace, HeardBeacon, PooledAp } from '../learned/shapes.js';
import { emptyRecord, type UserRecord } from '../users/records.js';
import type { UserStore, UserUpdate } from '../users/store.js';

type Write = () => Promise<void>;

export interface Run<T> { result: T; record: UserRecord | undefined; changed: boolean; learned: Write[] }

export class ClusterUserView implements UserStore {
  private user: { app: string; id: string | null; record: UserRecord | undefined; changed: boolean } = { app: '', id: null, record: undefined, changed: false };
  private learnedNow: Write[] = [];
  /** Merges of priors and sparse tables: sent after the next stored run, whatever its user. */
  private merges: Write[] = [];

  constructor(private readonly learned: LearnedState) {}

  /** Runs `detect` (synchronous) against `record` as the stored state of `user`. */
  run<T>(app: string, user: string | null, record: UserRecord | undefined, detect: () => T): Run<T> {
    this.user = { app, id: user, record: record && structuredClone(record), changed: false };
    this.learnedNow = [];
    const result = detect();
    return { result, record: this.user.record, changed: this.user.changed, learned: this.learnedNow };
  }

  /** What the thread's priors and sparse tables merged since the last call: to send now. */
  takeMerges(): Write[] {
    const m = this.merges;
    this.merges = [];
    return m;
  }

  read(app: string, user: string): UserRecord | undefined {
    return app === this.user.app && user === this.user.id && this.user.record ? structuredClone(this.user.record) : undefined;
  }

  update<T>(app: string, user: string, fn: (record: UserRecord) => UserUpdate<T>): T {
    if (app !== this.user.app || user !== this.user.id) throw new Error('cluster detection writes only the user it fetched');
    const out = fn(this.user.record ?? emptyRecord());
    this.user.record = out.record;
    this.user.changed = true;
    if (out.learn) this.learn(out.learn.app, out.learn.aps);
    return out.result;
  }

  learn(app: string, aps: ApObservation[]): void {
    for (const o of aps) {
      if (o.beacon) { const h = o.beacon; this.learnedNow.push(() => this.learned.merge<HeardBeacon>(['bl', app, o.bssid], (b) => beaconWith(b, h))); }
      else if (o.pool) { const c = o.pool; this.learnedNow.push(() => this.learned.merge<PooledAp>(['pv', app, o.bssid], (p) => pooledWith(p, c))); }
      else if (o.at) { const at = o.at; this.learnedNow.push(() => this.learned.merge<ApPlace>(['apx', app, o.bssid], (p) => placedAt(p, at))); }
    }
  }

  apPlaces(app: string, bssids: readonly string[]): Array<ApPlace | undefined> {
    return bssids.map((b) => (b ? this.learned.peek<ApPlace>(['apx', app, b]) : undefined));
  }

  pooledAps(app: string, bssids: readonly string[]): Array<PooledAp | undefined> {
    return bssids.map((b) => (b ? this.learned.peek<PooledAp>(['pv', app, b]) : undefined));
  }

  learnedBeacons(app: string, keys: readonly string[]): Array<HeardBeacon | undefined> {
    return keys.map((k) => this.learned.peek<HeardBeacon>(['bl', app, k]));
  }

  mergePriors(app: string, pending: Float64Array): Float64Array {
    const out = priorsPlus(this.learned.peek<number[]>(['kp', app, '']), pending);
    if (pending.some((x) => x !== 0)) {
      const add = Float64Array.from(pending);
      this.merges.push(() => this.learned.merge<number[]>(['kp', app, ''], (s) => Array.from(priorsPlus(s, add), (x) => Math.round(x * 1000) / 1000)));
    }
    return out;
  }

  mergeSparse(name: string, app: string, pending: ReadonlyMap<number, number>): Map<number, number> {
    const out = sparsePlus(this.learned.peek<number[]>([`ks:${name}`, app, '']), pending);
    if (pending.size) {
      const add = new Map(pending);
      this.merges.push(() => this.learned.merge<number[]>([`ks:${name}`, app, ''], (s) => flatSparse(sparsePlus(s, add))));
    }
    return out;
  }

  fresh(): void {}
  close(): void {}
}
