/**
 * The beacon registry in cluster mode (contract §8, §9): the records in the cluster's bucket
 * (state/nats/beacons.ts), one key per uuid/major/minor, and reads from this node's copy of it
 * (mirror.ts), so store.ts's synchronous reads stay synchronous and a beacon written through any
 * node is used by every node's detections.
 *
 * Uniqueness across nodes is the bucket's: a create is refused where the key holds a record,
 * and every update or delete names the revision it decided on, so of two nodes racing one wins
 * and the other decides again on the newer record. An identity change is two writes (the new
 * key, then the old one removed); should the process die between them, the beacon is found
 * under both, the newer wins on reads, and its next update or delete removes the other.
 * Writes of one app on this node run one after another, as in LMDB.
 */
import type { BeaconInput, BeaconPatch, StoredBeacon } from '../schemas/beacon.js';
import type { BeaconsState } from '../state/nats/beacons.js';
import { isConflict } from '../state/nats/kv.js';
import { BeaconMirror } from './mirror.js';
import { busy, importLines, inWindows, ROUNDS } from './cluster-import.js';
import { conflict, fresh, patched, placed, type BeaconStore, type ImportItem, type ListQuery } from './store.js';
import { clock } from '../time/clock.js';

const iso = (ms: number) => new Date(ms).toISOString();

export class ClusterBeaconStore implements BeaconStore {
  private readonly mirror: BeaconMirror;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly state: BeaconsState, private readonly now: () => number = clock.now) {
    this.mirror = new BeaconMirror(state);
  }

  get ready(): Promise<void> { return this.mirror.ready; }
  settle(): Promise<void> { return this.mirror.settle(); }

  get(app: string, id: string): StoredBeacon | undefined { return this.mirror.get(app, id); }
  list(app: string, q: ListQuery): { items: StoredBeacon[]; next: string | null } { return this.mirror.list(app, q); }
  version(app: string): number { return this.mirror.version(app); }
  all(app: string): Iterable<StoredBeacon> { return this.mirror.all(app); }

  create(app: string, input: BeaconInput): Promise<StoredBeacon> {
    return this.serial(app, async () => {
      const rec = fresh(app, input, iso(this.now()));
      let revision: number;
      try { revision = await this.state.create(rec); } catch (err) {
        throw isConflict(err) ? conflict(input) : err;
      }
      this.mirror.wrote(this.state.keyOf(rec), rec, revision);
      return rec;
    });
  }

  update(app: string, id: string, patch: BeaconPatch): Promise<StoredBeacon | undefined> {
    return this.serial(app, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        await this.mirror.settle();
        const cur = this.mirror.find(app, id);
        if (!cur) return undefined;
        const next = patched(cur.rec, patch, iso(this.now()));
        placed(next);
        const key = this.state.keyOf(next);
        try {
          if (key === cur.key) {
            this.mirror.wrote(key, next, await this.state.update(next, cur.revision));
          } else {
            const revision = await this.claim(next);
            this.mirror.wrote(key, next, revision);
            try {
              await this.state.remove(cur.key, cur.revision);
              this.mirror.removed(cur.key, cur.revision);
            } catch (err) {
              // The old record changed meanwhile: give the new key back and decide again.
              if (isConflict(err)) { await this.state.remove(key, revision); this.mirror.removed(key, revision); }
              throw err;
            }
          }
          await this.forget(cur.others);
          return next;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
      throw busy();
    });
  }

  delete(app: string, id: string): Promise<boolean> {
    return this.serial(app, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        await this.mirror.settle();
        const cur = this.mirror.find(app, id);
        if (!cur) return false;
        try {
          await this.state.remove(cur.key, cur.revision);
          this.mirror.removed(cur.key, cur.revision);
          await this.forget(cur.others);
          return true;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
      throw busy();
    });
  }

  upsertMany(app: string, items: readonly ImportItem[]): Promise<{ created: number; updated: number }> {
    return this.serial(app, async () => {
      await this.mirror.settle();
      return importLines(this.state, this.mirror, app, items, iso(this.now()));
    });
  }

  deleteApp(app: string): Promise<number> {
    return this.serial(app, async () => {
      const listed = await this.state.keys(app);
      const keys = new Set([...listed, ...this.mirror.keys(app)]);
      await inWindows([...keys], (key) => this.state.remove(key));
      // The watch brings the markers: this node's copy shows the app empty before the answer.
      await this.mirror.settle();
      return listed.length;
    });
  }

  async close(): Promise<void> { this.mirror.stop(); }

  /** Takes the key of `next`'s identity; a record of the same id there (a crash's leftover) is replaced. */
  private async claim(next: StoredBeacon): Promise<number> {
    try {
      return await this.state.create(next);
    } catch (err) {
      if (!isConflict(err)) throw err;
      const there = await this.state.read(this.state.keyOf(next));
      if (!there.rec) return this.state.create(next);
      if (there.rec.id !== next.id) throw conflict(next);
      return this.state.update(next, there.revision);
    }
  }

  /** Removes the leftover keys of an identity change a crash interrupted. */
  private async forget(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const e = this.mirror.entry(key);
      if (!e) continue;
      try {
        await this.state.remove(key, e.revision);
        this.mirror.removed(key, e.revision);
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
  }

  private serial<T>(app: string, fn: () => Promise<T>): Promise<T> {
    const p = (this.chains.get(app) ?? Promise.resolve()).then(fn, fn);
    const done = p.then(() => undefined, () => undefined);
    this.chains.set(app, done);
    void done.then(() => { if (this.chains.get(app) === done) this.chains.delete(app); });
    return p;
  }
}
