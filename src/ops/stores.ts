/**
 * Every LMDB environment the embedded node keeps under its data directory, in the order a
 * backup copies them. The engine keeps several environments (one per feature), so no single read
 * transaction spans them all; each is copied in a read transaction of its own, and the order is
 * what keeps the copy consistent across them.
 *
 * The rule: a request commits what it depends on before what depends on it. A detection's worker
 * commits the user's record (history, presence, learned values, retention index: `users/`)
 * while it detects; the HTTP thread then enqueues the request's
 * triggers (`outbox.mdb`) and only then answers 202 (server/detect-route.ts). The request's
 * signature is remembered (`replay.mdb`) before any of that, and the app (`apps.mdb`) exists
 * before any request of it. So copying in the reverse order (dependents first, what they depend
 * on after, each read later than the one before) gives: every trigger in the copy has its user's
 * record, signature and app in the copy too. The converse order could keep a trigger
 * whose user record was committed after that environment was copied, i.e. missing.
 *
 * Not copied: `dwell.lock` (the serving process's), LMDB's lock files (remade on open), the
 * format stamp (carried in the manifest), `last-backup.json`, and `venue-snapshots/` (cluster
 * mode's cache of the published venue stores, fetched again from NATS).
 */

export interface StoreFile {
  /** The kind's name in the manifest and logs. */
  name: string;
  /** Relative to the data directory: `x.mdb` is an LMDB file (no subdirectory), `x/` a directory holding `data.mdb`. */
  path: string;
}

export const STORES: readonly StoreFile[] = Object.freeze([
  { name: 'outbox', path: 'outbox.mdb' }, // pending and dead triggers: depends on everything below
  { name: 'recent', path: 'recent' }, // the explorer's recent detections, recorded before the enqueue
  { name: 'geofences', path: 'geofences.mdb' }, // fences, written by the HTTP thread
  { name: 'users', path: 'users' }, // histories, learned tables, retention index
  { name: 'beacons', path: 'beacons.mdb' }, // the registry detections read
  { name: 'place-triggers', path: 'place-triggers.mdb' }, // place triggers detections read
  { name: 'replay', path: 'replay.mdb' }, // signatures seen, remembered before a request is handled
  { name: 'apps', path: 'apps.mdb' }, // every app and its secrets: everything above names one
]);

/** The file LMDB keeps an environment's data in. */
export const dataFile = (s: StoreFile): string => (s.path.endsWith('.mdb') ? s.path : `${s.path}/data.mdb`);

/** Entries of a data directory that are neither a known store nor a known by-product. */
export function unknownStores(entries: readonly { name: string; isDirectory: boolean; holdsDataMdb: boolean }[]): string[] {
  const known = new Set(STORES.map((s) => s.path));
  return entries
    .filter((e) => (e.isDirectory ? e.holdsDataMdb : e.name.endsWith('.mdb')) && !known.has(e.name))
    .map((e) => e.name);
}
