/**
 * The beacon registry's storage, behind a small interface so that the cluster mode's NATS
 * state (contract §8) can implement it beside the embedded LMDB one (lmdb-store.ts). Every
 * method is per app: one app's beacons are unreachable from another's key.
 *
 * What an implementation promises: `uuid`/`major`/`minor` is unique within an app (create and
 * update answer 409 `conflict` otherwise); every write bumps the app's `version`, which detection
 * workers compare to rebuild their in-memory index (lookup.ts); a write is durable before its
 * promise resolves; writes of one app are applied in the order they were issued.
 */
import { randomBytes } from 'node:crypto';
import { DwellError, invalid } from '../errors.js';
import type { BeaconInput, BeaconPatch, StoredBeacon } from '../schemas/beacon.js';

export interface ListQuery { tag?: string; after?: string; limit: number }

/** One line of an import: the full record to create, or the fields it names to update. */
export interface ImportItem { input: BeaconInput; patch: BeaconPatch }

export interface BeaconStore {
  get(app: string, id: string): StoredBeacon | undefined;
  /** Records in id order after `after`; `next` is the last id when more may follow. */
  list(app: string, q: ListQuery): { items: StoredBeacon[]; next: string | null };
  create(app: string, input: BeaconInput): Promise<StoredBeacon>;
  /** Undefined when the id is unknown to this app. */
  update(app: string, id: string, patch: BeaconPatch): Promise<StoredBeacon | undefined>;
  delete(app: string, id: string): Promise<boolean>;
  /** Creates, or updates the record with the same uuid/major/minor; answers counts. */
  upsertMany(app: string, items: readonly ImportItem[]): Promise<{ created: number; updated: number }>;
  /** Bumped by every write of the app; 0 for an app that never had a beacon. */
  version(app: string): number;
  /** Every record of the app (a worker's index is built from it). */
  all(app: string): Iterable<StoredBeacon>;
  /** Removes everything of the app (privacy/delete-app.ts); answers how many beacons. */
  deleteApp(app: string): Promise<number>;
  /**
   * Resolves once get/list see every write acknowledged anywhere before the call: the cluster's
   * copy catches up (cluster-store.ts); at once where reads are always current (LMDB).
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** 96 random bits, drawn 4 KiB at a time. */
let pool = Buffer.alloc(0), used = 0;
export function newId(): string {
  if (used + 12 > pool.length) { pool = randomBytes(4096); used = 0; }
  return 'bc_' + pool.toString('hex', used, (used += 12));
}
export const ID_PATTERN = /^bc_[0-9a-f]{24}$/;

/** The record a patch makes of `old` at `at` (ISO time). */
export function patched(old: StoredBeacon, patch: BeaconPatch, at: string): StoredBeacon {
  const next: StoredBeacon = { ...old, updated_at: at };
  for (const k of ['uuid', 'major', 'minor', 'venue_id', 'location', 'tag'] as const) {
    if (patch[k] !== undefined) (next as Record<string, unknown>)[k] = patch[k];
  }
  return next;
}

export function fresh(app: string, input: BeaconInput, at: string): StoredBeacon {
  return { id: newId(), uuid: input.uuid, major: input.major, minor: input.minor, venue_id: input.venue_id,
    location: input.location, tag: input.tag, created_at: at, updated_at: at, app_key: app };
}

/** An update must leave the record somewhere: a venue or a location. */
export function placed(rec: StoredBeacon): void {
  if (rec.venue_id === null && rec.location === null) {
    throw invalid('', 'this update would leave the beacon with neither venue_id nor location; a beacon keeps at least one');
  }
}

export const conflict = (b: { uuid: string; major: number; minor: number }) =>
  new DwellError('conflict', `this app already has a beacon with uuid ${b.uuid}, major ${b.major}, minor ${b.minor}`);
