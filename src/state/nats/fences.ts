/**
 * Geofence records in the KV bucket `dwell-fences`, key `<app>.<id>` (ids are `gf_` and hex).
 * Reads of one fence and lists go to the cluster, so a fence written on one node is read on every
 * other at once; detection reads fences from each thread's in-memory index instead, which follows
 * the bucket's watch (state/nats/fence-mirror.ts). Expiry is decided at read time, as in LMDB.
 */
import type { KV } from '@nats-io/kv';
import type { StoredGeofence } from '../../schemas/geofence.js';
import type { Change, FencesState } from '../types.js';
import { decode, encode, follow, guard, isConflict, keysOf } from './kv.js';
import { clock } from '../../time/clock.js';
import { appRecords } from './app-records.js';

const live = (rec: StoredGeofence | undefined, now: number) =>
  rec && (rec.expires_at === null || Date.parse(rec.expires_at) > now) ? rec : undefined;

export function natsFences(kv: KV, now: () => number = clock.now): FencesState {
  const records = appRecords<StoredGeofence>(kv);
  const key = (app: string, id: string) => `${app}.${id}`;
  return {
    get: async (app, id) => live(await records.get(app, id), now()),
    async list(app, q) {
      const t = now();
      const ids = (await keysOf(kv, `${app}.*`)).map((k) => k.slice(app.length + 1)).filter((id) => id > (q.after ?? '')).sort();
      const items: StoredGeofence[] = [];
      for (const id of ids) {
        const rec = live(await records.get(app, id), t);
        if (!rec || (q.tag !== undefined && rec.tag !== q.tag)) continue;
        if (items.length === q.limit) return { items, next: items[items.length - 1].id };
        items.push(rec);
      }
      return { items, next: null };
    },
    async put(rec) { await guard(() => kv.put(key(rec.app_key, rec.id), encode(rec))); },
    update: (app, id, fn) => records.update(app, id, (old) => {
      const rec = live(old, now());
      return rec && fn(rec);
    }),
    remove: (app, id) => records.remove(app, id, (rec) => live(rec, now()) !== undefined),
    scan: records.scan,
    watch(fn: Change<StoredGeofence>) {
      return follow(kv, (e) => fn(e.key, decode<StoredGeofence>(e)));
    },
  };
}

/** Purges fences whose time is up (run by the cluster's sweep leader only). Answers how many. */
export async function purgeExpiredFences(kv: KV, now = clock.now()): Promise<number> {
  let n = 0;
  for (const k of await keysOf(kv)) {
    const e = await guard(() => kv.get(k));
    const rec = decode<StoredGeofence>(e);
    if (!rec || rec.expires_at === null || Date.parse(rec.expires_at) > now) continue;
    try {
      await guard(() => kv.delete(k, { previousSeq: e!.revision }));
      n++;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  return n;
}
