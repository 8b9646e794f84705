/**
 * The bulk import in cluster mode (cluster-store.ts): each line one conditional write to the
 * cluster's bucket, up to WINDOW in flight, so 100,000 lines take seconds, not one round trip
 * each in turn. Lines of one identity are written in their order (a later line updates what the
 * earlier one created), as in LMDB.
 */
import type { StoredBeacon } from '../schemas/beacon.js';
import type { BeaconsState } from '../state/nats/beacons.js';
import { isConflict } from '../state/nats/kv.js';
import type { BeaconMirror } from './mirror.js';
import { fresh, patched, type ImportItem } from './store.js';
import { DwellError } from '../errors.js';

/** Writes of an import or an app deletion in flight at once. */
const WINDOW = 128;

/** Decisions taken again after a lost race, before the write gives up with a 503. */
export const ROUNDS = 16;
/** Every round lost a race: 503 with Retry-After. */
export const busy = () => new DwellError('unavailable', 'this beacon kept changing under the write (other nodes writing it); try again', undefined, 1);

export async function importLines(state: BeaconsState, mirror: BeaconMirror, app: string, items: readonly ImportItem[], at: string): Promise<{ created: number; updated: number }> {
  const byKey = new Map<string, ImportItem[]>();
  for (const item of items) {
    const key = state.keyOf({ app_key: app, ...item.input });
    const same = byKey.get(key);
    if (same) same.push(item); else byKey.set(key, [item]);
  }
  let created = 0, updated = 0;
  await inWindows([...byKey], async ([key, lines]) => {
    for (const line of lines) {
      if (await upsertOne(state, mirror, app, key, line, at)) created++; else updated++;
    }
  });
  return { created, updated };
}

/** Creates `line`'s record, or updates the one its identity has; true when created. */
async function upsertOne(state: BeaconsState, mirror: BeaconMirror, app: string, key: string, line: ImportItem, at: string): Promise<boolean> {
  let cur: { rec: StoredBeacon | undefined; revision: number } = mirror.entry(key) ?? { rec: undefined, revision: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    try {
      if (cur.rec) {
        const next = patched(cur.rec, line.patch, at);
        mirror.wrote(key, next, await state.update(next, cur.revision));
        return false;
      }
      const rec = fresh(app, line.input, at);
      mirror.wrote(key, rec, await state.create(rec));
      return true;
    } catch (err) {
      if (!isConflict(err)) throw err;
      // Another node wrote this identity meanwhile: decide again on what the cluster holds.
      cur = await state.read(key);
    }
  }
  throw busy();
}

/** Runs `fn` over `items` with at most WINDOW running at once. */
export async function inWindows<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => { while (next < items.length) await fn(items[next++]); };
  await Promise.all(Array.from({ length: Math.min(WINDOW, items.length) }, lane));
}
