/**
 * Geofences in LMDB (`<dataDir>/geofences.mdb`), the source of truth. Named databases:
 * - fences  [app, id] → record; one app's fences are one key range, another app's are unreachable;
 * - tags    [app, tag, id] → 1, so a list by tag reads only that tag;
 * - expiry  [expires_ms, app, id] → 1, so the sweep reads only what is due;
 * - seq     app → n, and changes [app, n] → id: a per-app change log that lets each detection
 *   worker bring its own in-memory index up to date by replaying ids (see worker.ts).
 * Expiry is decided at read time against `now()`: an expired record is invisible to every read and
 * write here from the millisecond it expires, whether or not the sweep has purged it yet.
 * Writes are LMDB batches: their records are encoded here and written by lmdb-js's write thread,
 * which keeps the B-tree work off the event loop (creates/s are bound by this thread). Batches
 * commit in the order they are issued, so a change number taken when a write is issued is also
 * its commit order. A read-modify-write (update, delete, expiry) reads the committed record, so
 * it waits for the writes already issued for that fence (`serial`). Create, update and delete
 * also wait for the disk flush (lmdb-js overlaps it with later commits), so an answered write
 * survives a crash.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { GeofenceInput, GeofencePatch, StoredGeofence } from '../schemas/geofence.js';
import { clock } from '../time/clock.js';

export interface StoreOptions {
  /** The clock, ms; injectable so tests can move time. */
  now?: () => number;
  /** Skip fsync at commit (benchmarks): a crash may lose the latest writes. */
  noSync?: boolean;
}

export interface ListQuery { tag?: string; after?: string; limit: number }

const END = '\uffff';
/** 96 random bits. Drawn 4 KiB at a time: one randomBytes call per id cost more than the rest of the id. */
let pool = Buffer.alloc(0), used = 0;
export function newId(): string {
  if (used + 12 > pool.length) { pool = randomBytes(4096); used = 0; }
  return 'gf_' + pool.toString('hex', used, (used += 12));
}
export const ID_PATTERN = /^gf_[0-9a-f]{24}$/;
const iso = (ms: number) => new Date(ms).toISOString();
const fenceKey = (app: string, id: string) => `${app}\u0000${id}`;

/** Ms at which the record stops existing; Infinity for ttl 0. */
export function expiresMs(rec: { expires_at: string | null }): number {
  return rec.expires_at === null ? Infinity : Date.parse(rec.expires_at);
}

/** A new record (the store's and the cluster's: cluster-store.ts). */
export function newGeofence(app: string, input: GeofenceInput, now: number): StoredGeofence {
  const at = iso(now);
  return {
    id: newId(), app_key: app, tag: input.tag, location: input.location, ttl: input.ttl, push_text: input.push_text,
    created_at: at, updated_at: at, expires_at: input.ttl > 0 ? iso(now + input.ttl * 1000) : null,
  };
}

/** The record with a patch applied at `now` (a new ttl counts from now). */
export function patchedGeofence(old: StoredGeofence, patch: GeofencePatch, now: number): StoredGeofence {
  const next: StoredGeofence = { ...old, updated_at: iso(now) };
  if (patch.tag !== undefined) next.tag = patch.tag;
  if (patch.push_text !== undefined) next.push_text = patch.push_text;
  if (patch.location !== undefined) next.location = patch.location;
  if (patch.ttl !== undefined) {
    next.ttl = patch.ttl;
    next.expires_at = patch.ttl > 0 ? iso(now + patch.ttl * 1000) : null;
  }
  return next;
}

export class GeofenceStore {
  readonly now: () => number;
  readonly root: RootDatabase;
  private readonly fences: Database<StoredGeofence, [string, string]>;
  private readonly tags: Database<1, [string, string, string]>;
  private readonly expiry: Database<1, [number, string, string]>;
  private readonly seq: Database<number, string>;
  private readonly changes: Database<string, [string, number]>;
  /**
   * The last change number issued per app. One object writes a data directory's store: the
   * server's (data-dir-lock.ts keeps other processes out; detection workers only read).
   */
  private readonly issued = new Map<string, number>();
  /** Per fence ([app, id]), the last write issued and not yet committed. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(dataDir: string, opts: StoreOptions = {}) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.now = opts.now ?? clock.now;
    this.root = open({ path: path.join(dataDir, 'geofences.mdb'), compression: false, noSync: opts.noSync ?? false });
    this.fences = this.root.openDB({ name: 'fences' });
    this.tags = this.root.openDB({ name: 'tags' });
    this.expiry = this.root.openDB({ name: 'expiry' });
    this.seq = this.root.openDB({ name: 'seq' });
    this.changes = this.root.openDB({ name: 'changes' });
  }

  /** A live record, or undefined when it does not exist under this app or has expired. */
  get(app: string, id: string, now = this.now()): StoredGeofence | undefined {
    const rec = this.fences.get([app, id]);
    return rec && expiresMs(rec) > now ? rec : undefined;
  }

  /** Whatever is stored, expired or not: the index keeps expiry itself. */
  raw(app: string, id: string): StoredGeofence | undefined {
    return this.fences.get([app, id]);
  }

  /** Every stored record of an app, for building its index. */
  scan(app: string): Iterable<StoredGeofence> {
    return this.fences.getRange({ start: [app, ''], end: [app, END] }).map(({ value }) => value);
  }

  /** Live records in id order after `after`; `next` is the last id when more may follow. */
  list(app: string, q: ListQuery, now = this.now()): { items: StoredGeofence[]; next: string | null } {
    const after = q.after ?? '';
    const ids: Iterable<string> = q.tag !== undefined
      ? this.tags.getKeys({ start: [app, q.tag, after], end: [app, q.tag, END] }).map((k) => k[2])
      : this.fences.getKeys({ start: [app, after], end: [app, END] }).map((k) => k[1]);
    const items: StoredGeofence[] = [];
    for (const id of ids) {
      if (id === after) continue;
      const rec = this.get(app, id, now);
      if (!rec) continue;
      if (items.length === q.limit) return { items, next: items[items.length - 1].id };
      items.push(rec);
    }
    return { items, next: null };
  }

  async create(app: string, input: GeofenceInput): Promise<StoredGeofence> {
    const rec = newGeofence(app, input, this.now());
    // A new id: nothing of it is in flight, and nobody knows it before this answer.
    await this.root.batch(() => {
      this.putIn(rec);
      this.bump(app, rec.id);
    });
    await this.root.flushed;
    return rec;
  }

  /** Undefined when the id is unknown to this app or expired: the caller answers 404. */
  async update(app: string, id: string, patch: GeofencePatch): Promise<StoredGeofence | undefined> {
    const now = this.now();
    return this.serial(app, id, () => {
      const old = this.get(app, id, now);
      if (!old) return { result: undefined };
      const next = patchedGeofence(old, patch, now);
      return { result: next, write: () => {
        this.unlinkIn(old);
        this.putIn(next);
        this.bump(app, id);
      } };
    });
  }

  /** Stores a record as it is (its id new to the store): the cluster's record shape, for the state contract (lmdb-fences.ts). */
  async putRecord(rec: StoredGeofence): Promise<void> {
    await this.root.batch(() => { this.putIn(rec); this.bump(rec.app_key, rec.id); });
    await this.root.flushed;
  }

  /** A read-modify-write of a live record; `fn` answers the new record, or undefined to leave it. */
  modify(app: string, id: string, fn: (rec: StoredGeofence) => StoredGeofence | undefined): Promise<StoredGeofence | undefined> {
    const now = this.now();
    return this.serial(app, id, () => {
      const old = this.get(app, id, now);
      const next = old && fn(old);
      if (!old || !next) return { result: undefined };
      return { result: next, write: () => { this.unlinkIn(old); this.putIn(next); this.bump(app, id); } };
    });
  }

  /** False when the id is unknown to this app or expired. */
  delete(app: string, id: string): Promise<boolean> {
    const now = this.now();
    return this.serial(app, id, () => {
      const rec = this.get(app, id, now);
      return rec ? { result: true, write: () => this.purgeIn(rec) } : { result: false };
    });
  }

  /**
   * Purges up to `max` records whose time is up, through purgeIn like delete, so the index and
   * the change log see an expiry exactly as they see a delete. Answers how many entries it took.
   */
  async purgeExpired(max = 1000): Promise<number> {
    const now = this.now();
    const due = [...this.expiry.getKeys({ start: [0, '', ''], end: [Math.floor(now) + 1, '', ''], limit: max })];
    if (due.length === 0) return 0;
    // Fences with a write in flight wait for the next sweep: their committed record may be stale.
    const ready = due.filter(([, app, id]) => !this.inFlight.has(fenceKey(app, id)));
    const written = this.root.batch(() => {
      for (const [ms, app, id] of ready) {
        const rec = this.fences.get([app, id]);
        // A record updated since the key was read has a new expiry entry: this one is stale.
        if (rec && expiresMs(rec) === ms) this.purgeIn(rec);
        else this.expiry.remove([ms, app, id]);
      }
    });
    // An update or delete issued from now on reads after the purge, and finds nothing.
    for (const [, app, id] of ready) this.track(fenceKey(app, id), written);
    await written;
    return ready.length;
  }

  /**
   * A read-modify-write of one fence: once every write already issued for it has committed,
   * `decide` reads the committed record and answers the result, with the writes to issue as one
   * batch if any (durable before the result is given).
   */
  private serial<T>(app: string, id: string, decide: () => { result: T; write?: () => void }): Promise<T> {
    const key = fenceKey(app, id);
    const run = async (): Promise<T> => {
      const { result, write } = decide();
      if (!write) return result;
      const written = this.root.batch(write);
      this.track(key, written);
      await written;
      await this.root.flushed;
      return result;
    };
    const before = this.inFlight.get(key);
    if (!before) return run();
    const after = before.then(run, run);
    this.track(key, after);
    return after;
  }

  /** Later read-modify-writes of this fence wait for `p`. */
  private track(key: string, p: Promise<unknown>): void {
    const done = p.then(() => undefined, () => undefined);
    this.inFlight.set(key, done);
    void done.then(() => { if (this.inFlight.get(key) === done) this.inFlight.delete(key); });
  }

  /** The app's change counter: bumped by every create, update, delete and purge. */
  version(app: string): number {
    return this.seq.get(app) ?? 0;
  }

  /** Ids changed after `seq`, in order, or null when the log no longer reaches back that far. */
  changesSince(app: string, seq: number): { seq: number; ids: string[] } | null {
    const ids: string[] = [];
    let expect = seq + 1;
    for (const { key, value } of this.changes.getRange({ start: [app, seq + 1], end: [app, Number.MAX_SAFE_INTEGER] })) {
      if (key[1] !== expect) return null;
      ids.push(value);
      expect++;
    }
    if (ids.length === 0 && this.version(app) > seq) return null;
    return { seq: expect - 1, ids };
  }

  /** Drops all but the latest `keep` changes of every app; a worker further behind rebuilds. */
  async trimChanges(keep: number): Promise<number> {
    let removed = 0;
    await this.root.transaction(() => {
      for (const { key: app, value: n } of this.seq.getRange()) {
        for (const key of this.changes.getKeys({ start: [app, 0], end: [app, n - keep + 1] })) {
          this.changes.remove(key);
          removed++;
        }
      }
    });
    return removed;
  }

  close(): Promise<void> {
    return this.root.close();
  }

  private putIn(rec: StoredGeofence): void {
    this.fences.put([rec.app_key, rec.id], rec);
    if (rec.tag !== null) this.tags.put([rec.app_key, rec.tag, rec.id], 1);
    if (rec.expires_at !== null) this.expiry.put([expiresMs(rec), rec.app_key, rec.id], 1);
  }

  private unlinkIn(rec: StoredGeofence): void {
    if (rec.tag !== null) this.tags.remove([rec.app_key, rec.tag, rec.id]);
    if (rec.expires_at !== null) this.expiry.remove([expiresMs(rec), rec.app_key, rec.id]);
  }

  /** The one way a geofence leaves the store: delete and expiry both end here. */
  private purgeIn(rec: StoredGeofence): void {
    this.unlinkIn(rec);
    this.fences.remove([rec.app_key, rec.id]);
    this.bump(rec.app_key, rec.id);
  }

  /** Logs a change of `id`, numbered when issued (inside a batch: that is its commit order too). */
  private bump(app: string, id: string): void {
    // The first write of an app in this process starts from what is committed: nothing of the
    // app can be in flight before it.
    const n = (this.issued.get(app) ?? this.version(app)) + 1;
    this.issued.set(app, n);
    this.seq.put(app, n);
    this.changes.put([app, n], id);
  }
}
