/**
 * The beacon registry in LMDB (`<dataDir>/beacons.mdb`), the embedded implementation of
 * store.ts. Named databases, each keyed by app first so an app is one key range:
 * - beacons [app, id] → record;
 * - keys    [app, uuid, major, minor] → id, the uniqueness of an iBeacon identity and the
 *   import's match;
 * - tags    [app, tag, id] → 1, so a list by tag reads only that tag;
 * - seq     app → n, bumped by every write (detection workers rebuild on a new value).
 * The server's thread is the only writer (data-dir-lock.ts keeps other processes out). Writes of
 * one app run one after another (`serial`), so a read-decide-write never races another write of
 * the same app, and each waits for the disk flush before it answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { BeaconInput, BeaconPatch, StoredBeacon } from '../schemas/beacon.js';
import { conflict, fresh, patched, placed, type BeaconStore, type ImportItem, type ListQuery } from './store.js';
import { clock } from '../time/clock.js';

const END = '\uffff';
/** Import lines written per transaction: the event loop is never held long. */
const CHUNK = 2000;
const iso = (ms: number) => new Date(ms).toISOString();

export class LmdbBeaconStore implements BeaconStore {
  readonly root: RootDatabase;
  private readonly beacons: Database<StoredBeacon, [string, string]>;
  private readonly keys: Database<string, [string, string, number, number]>;
  private readonly tags: Database<1, [string, string, string]>;
  private readonly seq: Database<number, string>;
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(dataDir: string, private readonly now: () => number = clock.now) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.root = open({ path: path.join(dataDir, 'beacons.mdb'), compression: false });
    this.beacons = this.root.openDB({ name: 'beacons' });
    this.keys = this.root.openDB({ name: 'keys' });
    this.tags = this.root.openDB({ name: 'tags' });
    this.seq = this.root.openDB({ name: 'seq' });
  }

  /** A detection worker's read snapshot may predate the server's latest commit. */
  renew(): void { this.root.resetReadTxn(); }

  get(app: string, id: string): StoredBeacon | undefined { return this.beacons.get([app, id]); }

  list(app: string, q: ListQuery): { items: StoredBeacon[]; next: string | null } {
    const after = q.after ?? '';
    const ids: Iterable<string> = q.tag !== undefined
      ? this.tags.getKeys({ start: [app, q.tag, after], end: [app, q.tag, END] }).map((k) => k[2])
      : this.beacons.getKeys({ start: [app, after], end: [app, END] }).map((k) => k[1]);
    const items: StoredBeacon[] = [];
    for (const id of ids) {
      if (id === after) continue;
      const rec = this.get(app, id);
      if (!rec) continue;
      if (items.length === q.limit) return { items, next: items[items.length - 1].id };
      items.push(rec);
    }
    return { items, next: null };
  }

  create(app: string, input: BeaconInput): Promise<StoredBeacon> {
    return this.serial(app, () => {
      if (this.keyOwner(app, input)) throw conflict(input);
      const rec = fresh(app, input, iso(this.now()));
      return { result: rec, write: () => { this.putIn(rec); this.bump(app); } };
    });
  }

  update(app: string, id: string, patch: BeaconPatch): Promise<StoredBeacon | undefined> {
    return this.serial(app, () => {
      const old = this.get(app, id);
      if (!old) return { result: undefined };
      const next = patched(old, patch, iso(this.now()));
      placed(next);
      const owner = this.keyOwner(app, next);
      if (owner && owner !== id) throw conflict(next);
      return { result: next, write: () => { this.unlinkIn(old); this.putIn(next); this.bump(app); } };
    });
  }

  delete(app: string, id: string): Promise<boolean> {
    return this.serial(app, () => {
      const old = this.get(app, id);
      return old ? { result: true, write: () => { this.unlinkIn(old); this.beacons.remove([app, id]); this.bump(app); } } : { result: false };
    });
  }

  upsertMany(app: string, items: readonly ImportItem[]): Promise<{ created: number; updated: number }> {
    return this.serial(app, async () => {
      let created = 0, updated = 0;
      const at = iso(this.now());
      for (let i = 0; i < items.length; i += CHUNK) {
        await this.root.transaction(() => {
          for (const { input, patch } of items.slice(i, i + CHUNK)) {
            const owner = this.keyOwner(app, input);
            const old = owner ? this.get(app, owner) : undefined;
            if (old) {
              const next = patched(old, patch, at);
              // A line that names neither keeps what the record had.
              this.unlinkIn(old); this.putIn(next); updated++;
            } else { this.putIn(fresh(app, input, at)); created++; }
          }
          this.bump(app);
        });
      }
      await this.root.flushed;
      return { result: { created, updated } };
    });
  }

  version(app: string): number { return this.seq.get(app) ?? 0; }

  all(app: string): Iterable<StoredBeacon> {
    return this.beacons.getRange({ start: [app, ''], end: [app, END] }).map(({ value }) => value);
  }

  deleteApp(app: string): Promise<number> {
    return this.serial(app, async () => {
      let n = 0;
      for (;;) {
        const batch = [...this.beacons.getRange({ start: [app, ''], end: [app, END], limit: CHUNK })];
        if (batch.length === 0) break;
        await this.root.transaction(() => { for (const { value } of batch) { this.unlinkIn(value); this.beacons.remove([app, value.id]); } });
        n += batch.length;
      }
      // The counter goes last: a worker's index of the app is dropped on its next look.
      await this.root.transaction(() => { if (n) this.bump(app); });
      await this.root.flushed;
      return { result: n };
    });
  }

  /** One process writes the store and reads it in the same snapshot: nothing is ever pending. */
  settle(): Promise<void> { return Promise.resolve(); }
  close(): Promise<void> { return this.root.close(); }

  private keyOwner(app: string, b: { uuid: string; major: number; minor: number }): string | undefined {
    return this.keys.get([app, b.uuid, b.major, b.minor]);
  }

  private putIn(rec: StoredBeacon): void {
    this.beacons.put([rec.app_key, rec.id], rec);
    this.keys.put([rec.app_key, rec.uuid, rec.major, rec.minor], rec.id);
    if (rec.tag !== null) this.tags.put([rec.app_key, rec.tag, rec.id], 1);
  }

  private unlinkIn(rec: StoredBeacon): void {
    this.keys.remove([rec.app_key, rec.uuid, rec.major, rec.minor]);
    if (rec.tag !== null) this.tags.remove([rec.app_key, rec.tag, rec.id]);
  }

  private bump(app: string): void { this.seq.put(app, this.version(app) + 1); }

  /**
   * Runs `decide` once the app's earlier writes have committed; its `write`, if any, is one
   * transaction, durable before the result is given. `decide` may throw (a 409, a 400).
   */
  private serial<T>(app: string, decide: () => { result: T; write?: () => void } | Promise<{ result: T }>): Promise<T> {
    const run = async (): Promise<T> => {
      const d = await decide();
      const write = (d as { write?: () => void }).write;
      if (write) { await this.root.transaction(write); await this.root.flushed; }
      return d.result;
    };
    const before = this.chains.get(app) ?? Promise.resolve();
    const p = before.then(run, run);
    const done = p.then(() => undefined, () => undefined);
    this.chains.set(app, done);
    void done.then(() => { if (this.chains.get(app) === done) this.chains.delete(app); });
    return p;
  }
}
