/**
 * The geofence routes' store in cluster mode (contract §8): the same records and answers as
 * GeofenceStore, kept in the cluster's fence state, so a fence written through any node is read
 * by every other at once and raises events on every node (mirror.ts). external_ids are claimed in
 * their own bucket before the fence is written (state/nats/fence-xids.ts); a near search reads
 * this thread's FenceMirror, made on the first search and brought up to every write acknowledged
 * before each search.
 */
import type { FencesState } from '../state/types.js';
import type { GeofenceInput, GeofencePatch, StoredGeofence } from '../schemas/geofence.js';
import type { FenceXids } from '../state/nats/fence-xids.js';
import type { GeofenceApi } from './routes.js';
import { newGeofence, patchedGeofence } from './store.js';
import { FenceMirror } from './mirror.js';
import { nearSearch } from './near.js';
import { lineError, type ImportItem, type LineError } from './import.js';
import { DwellError } from '../errors.js';
import { clock } from '../time/clock.js';

const until = (rec: StoredGeofence) => (rec.expires_at === null ? undefined : Date.parse(rec.expires_at));

/** Import writes in flight at once: 100,000 lines take seconds, not a round trip each in turn. */
const WINDOW = 128;

/** Runs `fn` over `items` with at most WINDOW running at once. */
async function inWindows<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => { while (next < items.length) await fn(items[next++]); };
  await Promise.all(Array.from({ length: Math.min(WINDOW, items.length) }, lane));
}

/** How long a near search waits for this node's copy to hold every earlier write. */
const CATCH_UP_MS = 2_000;

export function clusterGeofences(fences: FencesState, xids: FenceXids, now: () => number = clock.now): GeofenceApi & { close(): void } {
  let mirror: FenceMirror | undefined;
  const create = async (app: string, input: GeofenceInput): Promise<StoredGeofence> => {
    const rec = newGeofence(app, input, now());
    if (rec.external_id) await xids.claim(app, rec.external_id, rec.id, until(rec));
    await fences.put(rec);
    return rec;
  };
  const update = async (app: string, id: string, patch: GeofencePatch): Promise<StoredGeofence | undefined> => {
    const xid = patch.external_id;
    const before = xid ? await fences.get(app, id) : undefined;
    if (xid && !before) return undefined;
    const claimed = xid && before?.external_id !== xid;
    if (claimed && before) await xids.claim(app, xid, id, until(patchedGeofence(before, patch, now())));
    let old: StoredGeofence | undefined;
    const next = await fences.update(app, id, (rec) => { old = rec; return patchedGeofence(rec, patch, now()); });
    if (!next && claimed) await xids.release(app, xid, id);
    if (next && old?.external_id && old.external_id !== next.external_id) await xids.release(app, old.external_id, id);
    return next;
  };
  return {
    get: (app, id) => fences.get(app, id),
    list: (app, q) => fences.list(app, q),
    create,
    update,
    async delete(app: string, id: string): Promise<boolean> {
      const rec = await fences.get(app, id);
      const gone = await fences.remove(app, id);
      if (gone && rec?.external_id) await xids.release(app, rec.external_id, id);
      return gone;
    },
    byExternalId: (app, xid) => xids.lookup(app, xid),
    /** Lines of one external_id in their order (a later line updates what an earlier one made); the rest in parallel. */
    async upsertMany(app: string, items: readonly ImportItem[]) {
      const groups = new Map<string, ImportItem[]>();
      const alone: ImportItem[][] = [];
      for (const item of items) {
        if (item.external_id === null) { alone.push([item]); continue; }
        const same = groups.get(item.external_id);
        if (same) same.push(item); else groups.set(item.external_id, [item]);
      }
      let created = 0, updated = 0;
      const errors: LineError[] = [];
      await inWindows([...groups.values(), ...alone], async (lines) => {
        for (const item of lines) {
          try {
            // Most lines of an import name an external_id nobody has: one create-if-absent, then the fence.
            if (item.external_id !== null && !('code' in item.input)) {
              const rec = newGeofence(app, item.input, now());
              if (await xids.fresh(app, item.external_id, rec.id, until(rec))) { await fences.put(rec); created++; continue; }
            }
            const held = item.external_id === null ? undefined : await xids.lookup(app, item.external_id);
            if (held && await update(app, held.id, item.patch)) { updated++; continue; }
            if ('code' in item.input) { errors.push(item.input); continue; }
            await create(app, item.input);
            created++;
          } catch (err) {
            if (!(err instanceof DwellError) || err.code === 'unavailable') throw err;
            errors.push(lineError(item.line, err));
          }
        }
      });
      return { created, updated, errors };
    },
    async near(app, q) {
      if (!mirror) mirror = new FenceMirror(fences);
      await mirror.ready;
      await mirror.caughtUp(CATCH_UP_MS);
      const m = mirror;
      return nearSearch(m.index(app), (id) => m.info(app, id), q, now());
    },
    close() { mirror?.stop(); },
  };
}
