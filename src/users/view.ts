/**
 * The synchronous UserStore that detection reads and writes, in the embedded engine: one per
 * detection thread, over a record read before the run (store.ts `modify`) and the thread's LMDB
 * learned tables. As state/user-view.ts does for the cluster, a run writes nothing itself: the
 * record it changed and the access points it taught are collected and committed together, in one
 * write transaction, by the pipeline (pipeline/detect.ts). Learned reads and the priors' and
 * sparse tables' merges go straight to the tables (their merges are additions, their own
 * transactions), as before.
 *
 * No copies: the record handed to `run` is a fresh decode, detection's own to change.
 */
import type { ApObservation, LearnedTables } from '../learned/tables.js';
import { emptyRecord, type UserRecord } from './records.js';
import type { UserStore, UserUpdate } from './store.js';

export interface EmbeddedRun<T> { result: T; record: UserRecord | undefined; changed: boolean; aps: ApObservation[] }

type Tables = Pick<LearnedTables, 'apPlaces' | 'pooledAps' | 'learnedBeacons' | 'mergePriors' | 'mergeSparse'>;

export class EmbeddedUserView implements UserStore {
  private app = '';
  private id: string | null = null;
  private record: UserRecord | undefined;
  private changed = false;
  private aps: ApObservation[] = [];

  constructor(private readonly tables: Tables) {}

  /** Runs `detect` (synchronous) against `record` as the stored state of `user`. */
  run<T>(app: string, user: string | null, record: UserRecord | undefined, detect: () => T): EmbeddedRun<T> {
    this.app = app; this.id = user; this.record = record; this.changed = false; this.aps = [];
    const result = detect();
    return { result, record: this.record, changed: this.changed, aps: this.aps };
  }

  read(app: string, user: string): UserRecord | undefined {
    return app === this.app && user === this.id ? this.record : undefined;
  }

  update<T>(app: string, user: string, fn: (record: UserRecord) => UserUpdate<T>): T {
    if (app !== this.app || user !== this.id) throw new Error('detection writes only the user it read');
    const out = fn(this.record ?? emptyRecord());
    this.record = out.record;
    this.changed = true;
    if (out.learn) this.learn(out.learn.app, out.learn.aps);
    return out.result;
  }

  learn(app: string, aps: ApObservation[]): void {
    if (app !== this.app) throw new Error('detection teaches only the app it runs for');
    for (const o of aps) this.aps.push(o);
  }

  apPlaces: Tables['apPlaces'] = (app, bssids) => this.tables.apPlaces(app, bssids);
  pooledAps: Tables['pooledAps'] = (app, bssids) => this.tables.pooledAps(app, bssids);
  learnedBeacons: Tables['learnedBeacons'] = (app, keys) => this.tables.learnedBeacons(app, keys);
  mergePriors: Tables['mergePriors'] = (app, pending) => this.tables.mergePriors(app, pending);
  mergeSparse: Tables['mergeSparse'] = (name, app, pending) => this.tables.mergeSparse(name, app, pending);
  fresh(): void {}
  close(): void {}
}
