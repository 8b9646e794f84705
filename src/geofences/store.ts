/**
 * Geofences in LMDB (`<dataDir>/geofences.mdb`), the source of truth. Named databases:
 * - fences  [app, id] → record; one app's fences are one key range, another app's are unreachable;
 * - tags    [app, tag, id] → 1, so a list by tag reads only that tag;
 * - expiry  [expires_ms, app, id] → 1, so the sweep reads only what is due;
 * - external [app, external_id] → id: the uniqueness of an external_id within its app, written
 *   with the record, with the claims of writes in flight (external-ids.ts);
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
import { ExternalIds } from './external-ids.js';
import type { ImportItem, LineError } from './import.js';
import { nearSearch, type NearPage, type NearQuery } from './near.js';
import type { FenceIndex } from './fence-index.js';
import { clock } from '../time/clock.js';

export interface StoreOptions {
  /** The clock, ms; injectable so tests can move time. */
  now?: () => number;
  /** Skip fsync at commit (benchmarks): a crash may lose the latest writes. */
  noSync?: boolean;
  /**
   * The app's fence index as of the latest commit, for `near` (service.ts gives worker.ts's
   * liveIndex: the index is kept up to date from the change log, as a detection worker's is).
   */
  nearIndex?: (store: GeofenceStore, app: string) => FenceIndex | undefined;
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
    dwell: input.dwell ?? 0, metadata: input.metadata ?? null, external_id: input.external_id ?? null,
    created_at: at, updated_at: at, expires_at: input.ttl > 0 ? iso(now + input.ttl * 1000) : null,
  };
}

/** The record with a patch applied at `now` (a new ttl counts from now). */
export function patchedGeofence(old: StoredGeofence, patch: GeofencePatch, now: number): StoredGeofence {
  const next: StoredGeofence = { ...old, updated_at: iso(now) };
  if (patch.tag !== undefined) next.tag = patch.tag;
  if (patch.push_text !== undefined) next.push_text = patch.push_text;
  if (patch.location !== undefined) next.location = patch.location;
  if (patch.dwell !== undefined) next.dwell = patch.dwell;
  if (patch.metadata !== undefined) next.metadata = patch.metadata;
  if (patch.external_id !== undefined) next.external_id = patch.external_id;
  if (patch.ttl !== undefined) {
    next.ttl = patch.ttl;
    next.expires_at = patch.ttl > 0 ? iso(now + patch.ttl * 1000) : null;
  }
  return next;
}


/** Import lines written per transaction: the event loop is never held long. */
const CHUNK = 2000;

export class GeofenceStore {
  readonly now: () => number;
  private readonly nearIndex: StoreOptions['nearIndex'];
  readonly root: RootDatabase;
  private readonly fences: Database<StoredGeofence, [string, string]>;
  private readonly tags: Database<1, [string, string, string]>;
  private readonly expiry: Database<1, [number, string, string]>;
  private readonly seq: Database<number, string>;
  private readonly changes: Database<string, [string, number]>;
  private readonly xids: ExternalIds;
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
    this.nearIndex = opts.nearIndex;
    this.root = open({ path: path.join(dataDir, 'geofences.mdb'), compression: false, noSync: opts.noSync ?? false });
    this.fences = this.root.openDB({ name: 'fences' });
    this.tags = this.root.openDB({ name: 'tags' });
    this.expiry = this.root.openDB({ name: 'expiry' });
    this.seq = this.root.openDB({ name: 'seq' });
    this.changes = this.root.openDB({ name: 'changes' });
    this.xids = new ExternalIds(this.root.openDB({ name: 'external' }), (app, id, now) => this.get(app, id, now));
  }

  /** The live fence with this external_id, if any. */
  byExternalId(app: string, xid: string, now = this.now()): StoredGeofence | undefined {
    return this.xids.find(app, xid, now);
  }

  /** The live fences within `q.radius` of a point, nearest first, from this thread's index of the app. */
  near(app: string, q: NearQuery): NearPage {
    if (this.version(app) === 0) return { items: [], next: null };
    if (!this.nearIndex) throw new Error('GeofenceStore.near needs the nearIndex option (service.ts)');
    return nearSearch(this.nearIndex(this, app), (id) => this.raw(app, id), q, this.now());
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
    const now = this.now();
    const rec = newGeofence(app, input, now);
    const hold = this.xids.claim(app, rec.external_id, rec.id, now);
    // A new id: nothing of it is in flight, and nobody knows it before this answer.
    const written = this.root.batch(() => {
      this.putIn(rec);
      this.bump(app, rec.id);
    });
    hold(written);
    await written;
    await this.root.flushed;
    return rec;
  }

  /**
   * The import (contract §4): each line updates the live fence its external_id names, or creates
   * one; lines are written CHUNK to a transaction, read and decided inside it, so an earlier line
   * (or write) of the same external_id is seen by a later one.
   */
  async upsertMany(app: string, items: readonly ImportItem[]): Promise<{ created: number; updated: number; errors: LineError[] }> {
    let created = 0, updated = 0;
    const errors: LineError[] = [];
    for (let i = 0; i < items.length; i += CHUNK) {
      // The callback may run after this call returns (behind writes already queued): what it
      // claims and touches waits for `committed`, settled once the transaction is.
      let settle!: () => void;
      const committed = new Promise<void>((r) => { settle = r; });
      const written = this.root.transaction(() => {
        const now = this.now();
        let bumped = false;
        for (const { input, patch, external_id: xid } of items.slice(i, i + CHUNK)) {
          // A write decided before this transaction and still in flight holds its claim: it commits first.
          const claimed = xid === null ? undefined : this.xids.claimed(app, xid);
          const old = xid === null ? undefined : this.byExternalId(app, xid, now) ?? (claimed ? this.get(app, claimed, now) : undefined);
          if (old) {
            const next = patchedGeofence(old, patch, now);
            this.unlinkIn(old); this.putIn(next); this.bump(app, old.id, false); updated++;
            this.track(fenceKey(app, old.id), committed);
          } else if ('code' in input) {
            errors.push(input); // names no live fence, and is no valid create
            continue;
          } else {
            const rec = newGeofence(app, input, now);
            // Claimed until the commit: a create decided meanwhile must see it taken.
            if (xid !== null) this.xids.claim(app, xid, rec.id, now)(committed);
            this.putIn(rec); this.bump(app, rec.id, false); created++;
          }
          bumped = true;
        }
        // The change counter once a chunk: the log has every id.
        if (bumped) this.seq.put(app, this.issued.get(app)!);
      });
      try { await written; } finally { settle(); }
    }
    await this.root.flushed;
    return { created, updated, errors };
  }

  /** Undefined when the id is unknown to this app or expired: the caller answers 404. */
  async update(app: string, id: string, patch: GeofencePatch): Promise<StoredGeofence | undefined> {
    const now = this.now();
    return this.serial(app, id, () => {
      const old = this.get(app, id, now);
      if (!old) return { result: undefined };
      const next = patchedGeofence(old, patch, now);
      const hold = next.external_id !== old.external_id ? this.xids.claim(app, next.external_id, id, now) : undefined;
      return { result: next, hold, write: () => {
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
  private serial<T>(app: string, id: string, decide: () => { result: T; write?: () => void; hold?: (p: Promise<unknown>) => void }): Promise<T> {
    const key = fenceKey(app, id);
    const run = async (): Promise<T> => {
      const { result, write, hold } = decide();
      if (!write) return result;
      const written = this.root.batch(write);
      hold?.(written);
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
    this.xids.link(rec);
    if (rec.tag !== null) this.tags.put([rec.app_key, rec.tag, rec.id], 1);
    if (rec.expires_at !== null) this.expiry.put([expiresMs(rec), rec.app_key, rec.id], 1);
  }

  private unlinkIn(rec: StoredGeofence): void {
    this.xids.unlink(rec);
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
  private bump(app: string, id: string, counter = true): void {
    // The first write of an app in this process starts from what is committed: nothing of the
    // app can be in flight before it.
    const n = (this.issued.get(app) ?? this.version(app)) + 1;
    this.issued.set(app, n);
    if (counter) this.seq.put(app, n);
    this.changes.put([app, n], id);
  }
}
