/**
 * Cluster mode: a thread's copy of every app's beacons, fed by the bucket's watch
 * (state/nats/beacons.ts), so the registry's reads stay synchronous (store.ts) and a detection
 * thread looks beacons up in memory: each app's index (the BeaconView lookup.ts builds in the
 * embedded mode) is updated change by change, so an import streaming in costs no rebuilds. A change made on any node arrives within the watch's delay
 * (milliseconds); a write made through this copy's store is applied here before it resolves.
 * Each key's revision is kept, so a value that arrives late never replaces a newer one.
 * Memory: every beacon once per thread that follows (the server's and each detection thread).
 */
import { beaconKey, type BeaconView, type RegisteredBeacon, type StoredBeacon } from '../schemas/beacon.js';
import type { Watching } from '../state/types.js';
import { appOfKey, type BeaconsState } from '../state/nats/beacons.js';
import { log } from '../log.js';
import { DwellError } from '../errors.js';
import type { ListQuery } from './store.js';

export interface Entry { key: string; rec: StoredBeacon; revision: number }
/** How long a read waits for the copy to catch up (milliseconds, unless a new thread replays 100,000s). */
const SETTLE_MS = 5_000;

/** One app's records, and its index as detection reads it, kept change by change (no rebuilds during an import). */
class AppCopy implements BeaconView {
  readonly byKey = new Map<string, StoredBeacon>();
  /** id → keys; two keys only after a crash between the two writes of an identity change. */
  readonly byId = new Map<string, string[]>();
  private readonly byIdentity = new Map<string, RegisteredBeacon>();
  private readonly perVenue = new Map<string, number>();
  version = 0;
  sorted: string[] | null = null;

  link(key: string, r: StoredBeacon): void {
    this.byKey.set(key, r);
    this.byId.set(r.id, [...(this.byId.get(r.id) ?? []), key]);
    this.byIdentity.set(beaconKey(r.uuid, r.major, r.minor), { venueId: r.venue_id, lat: r.location?.lat ?? NaN, lon: r.location?.long ?? NaN });
    if (r.venue_id !== null) this.perVenue.set(r.venue_id, (this.perVenue.get(r.venue_id) ?? 0) + 1);
  }

  unlink(key: string, r: StoredBeacon): void {
    this.byKey.delete(key);
    const keys = this.byId.get(r.id)?.filter((k) => k !== key) ?? [];
    if (keys.length) this.byId.set(r.id, keys); else this.byId.delete(r.id);
    this.byIdentity.delete(beaconKey(r.uuid, r.major, r.minor));
    if (r.venue_id === null) return;
    const n = (this.perVenue.get(r.venue_id) ?? 1) - 1;
    if (n > 0) this.perVenue.set(r.venue_id, n); else this.perVenue.delete(r.venue_id);
  }

  find(key: string): RegisteredBeacon | undefined { return this.byIdentity.get(key); }
  atVenue(venueId: string): number { return this.perVenue.get(venueId) ?? 0; }
}

export class BeaconMirror {
  /** Every key's latest known revision; undefined `rec`: removed by this node, marker not seen yet. */
  private readonly revisions = new Map<string, { rec: StoredBeacon | undefined; revision: number }>();
  private readonly apps = new Map<string, AppCopy>();
  /** The latest revision the watch brought: a write of this node's at or below it is already here. */
  private seen = 0;
  /** One counter for all apps: an app emptied and filled again never shows an old version. */
  private clock = 0;
  private readonly watching: Watching;

  constructor(state: BeaconsState) {
    this.watching = state.watch((key, rec, revision) => {
      this.change(key, rec, revision);
      if (!rec && this.revisions.get(key)?.revision === revision) this.revisions.delete(key);
      if (revision > this.seen) this.seen = revision;
    });
  }

  get ready(): Promise<void> { return this.watching.ready; }

  /**
   * Resolves once this copy holds every write the cluster acknowledged before the call. A copy
   * still behind after `maxMs` (a new thread replaying a large registry, a watch cut off) answers
   * 503 `unavailable` when `late` is 'refuse', or lets the caller go on with what it has ('warn').
   */
  async settle(maxMs = SETTLE_MS, late: 'refuse' | 'warn' = 'refuse'): Promise<void> {
    if (await this.watching.caughtUp(maxMs)) return;
    if (late === 'refuse') throw new DwellError('unavailable', 'this node\'s copy of the beacon registry is still catching up with the cluster; try again shortly', undefined, 1);
    log.warn('beacon copy behind the cluster; going on with it', { seen: this.seen });
  }

  /**
   * This node wrote `rec` at `revision`. Once the watch has passed that revision it has brought
   * this value or a newer one (whose removal may already be forgotten): nothing to do.
   */
  wrote(key: string, rec: StoredBeacon, revision: number): void {
    if (revision > this.seen) this.change(key, rec, revision);
  }

  /** This node removed `key` as it was at `revision`; the watch's marker, later, forgets the key. */
  removed(key: string, revision: number): void {
    if (this.revisions.has(key)) this.change(key, undefined, revision + 0.5);
  }

  /** A change of `key` at `revision` (undefined: removed), unless a later one is already here. */
  private change(key: string, rec: StoredBeacon | undefined, revision: number): void {
    const known = this.revisions.get(key);
    if (known && known.revision >= revision) return;
    this.revisions.set(key, { rec, revision });
    const app = appOfKey(key);
    let copy = this.apps.get(app);
    if (!copy) this.apps.set(app, (copy = new AppCopy()));
    const old = copy.byKey.get(key);
    if (old) copy.unlink(key, old);
    if (rec) copy.link(key, rec);
    copy.version = ++this.clock;
    copy.sorted = null;
    if (copy.byKey.size === 0) this.apps.delete(app);
  }

  /** The record of `id` (the newest, should a crash have left two) and the other keys of the id. */
  find(app: string, id: string): (Entry & { others: string[] }) | undefined {
    const keys = this.apps.get(app)?.byId.get(id);
    if (!keys) return undefined;
    const entries = keys.map((k) => this.entry(k)!).sort((a, b) => (a.rec.updated_at < b.rec.updated_at ? 1 : -1));
    return { ...entries[0], others: entries.slice(1).map((e) => e.key) };
  }

  entry(key: string): Entry | undefined {
    const r = this.revisions.get(key);
    return r?.rec ? { key, rec: r.rec, revision: r.revision } : undefined;
  }

  get(app: string, id: string): StoredBeacon | undefined { return this.find(app, id)?.rec; }

  list(app: string, q: ListQuery): { items: StoredBeacon[]; next: string | null } {
    const copy = this.apps.get(app);
    if (!copy) return { items: [], next: null };
    const ids = (copy.sorted ??= [...copy.byId.keys()].sort());
    const items: StoredBeacon[] = [];
    for (let i = q.after === undefined ? 0 : firstAfter(ids, q.after); i < ids.length; i++) {
      const rec = this.get(app, ids[i])!;
      if (q.tag !== undefined && rec.tag !== q.tag) continue;
      if (items.length === q.limit) return { items, next: items[items.length - 1].id };
      items.push(rec);
    }
    return { items, next: null };
  }

  version(app: string): number { return this.apps.get(app)?.version ?? 0; }

  all(app: string): Iterable<StoredBeacon> { return this.apps.get(app)?.byKey.values() ?? []; }

  keys(app: string): string[] { return [...(this.apps.get(app)?.byKey.keys() ?? [])]; }

  /** The app's index for detection (the copy itself, kept change by change); undefined when it has no beacon. */
  view(app: string): BeaconView | undefined { return this.apps.get(app); }

  stop(): void { this.watching.stop(); }
}

/** The index of the first id greater than `after` in sorted `ids`. */
function firstAfter(ids: readonly string[], after: string): number {
  let lo = 0, hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] <= after) lo = mid + 1; else hi = mid;
  }
  return lo;
}
