/**
 * Cluster mode: the uniqueness of a geofence's external_id within its app (contract §4), in the
 * KV bucket `dwell-fence-xids`, key `<app>.<token(external_id)>` → `{id, at}`. A claim is taken
 * with a create-if-absent (or a compare-and-set over a stale one) before the fence is written, so
 * two nodes creating the same external_id at once see one win and one 409. A claim is stale when
 * its fence is gone, expired or carries another external_id; a claim whose fence is not written
 * yet is another node's create in flight for GRACE_MS. Claims of deleted fences are released;
 * those of purged ones go stale and are taken over.
 */
import type { KV } from '@nats-io/kv';
import type { StoredGeofence } from '../../schemas/geofence.js';
import type { FencesState } from '../types.js';
import { decode, encode, guard, isConflict, token } from './kv.js';
import { DwellError } from '../../errors.js';

const ROUNDS = 16;
/** How long a claim without its fence counts as a create in flight (a create writes its fence within ms). */
const GRACE_MS = 30_000;

/** `at`: when it was taken; `until`: when the fence it was taken for expires (absent: never). */
interface Claim { id: string; at: number; until?: number }

export interface FenceXids {
  /** The live fence that holds `xid`, if any. */
  lookup(app: string, xid: string): Promise<StoredGeofence | undefined>;
  /** Takes `xid` for `id` (a fence expiring at `until` ms, if ever); throws `taken(xid)` when another live fence (or a create in flight) holds it. */
  claim(app: string, xid: string, id: string, until?: number): Promise<void>;
  /** Takes `xid` for `id` when no claim of it exists at all (one round trip); false otherwise. */
  fresh(app: string, xid: string, id: string, until?: number): Promise<boolean>;
  /** Gives `xid` up when `id` still holds it. */
  release(app: string, xid: string, id: string): Promise<void>;
}

export const taken = (xid: string) =>
  new DwellError('conflict', `external_id ${JSON.stringify(xid)} is already another geofence's in this app`, '/external_id');

const busy = () => new DwellError('unavailable', 'this external_id kept changing under the write (other nodes writing it); try again', undefined, 1);

export function natsFenceXids(kv: KV, fences: FencesState, now: () => number): FenceXids {
  const key = (app: string, xid: string) => `${app}.${token(xid)}`;
  /**
   * A claim whose fence is not written yet: another node's create, unless its fence's time is up.
   * Its age is taken either way round, as the claiming node's clock may be ahead of this one's.
   */
  const inFlight = (c: Claim) => Math.abs(now() - c.at) < GRACE_MS && !(c.until !== undefined && c.until <= now());
  /** The claim's fence when it is live and still has `xid`. */
  const holderOf = async (app: string, xid: string, c: Claim | undefined) => {
    if (!c) return undefined;
    const rec = await fences.get(app, c.id);
    return rec && rec.external_id === xid ? rec : undefined;
  };
  return {
    async lookup(app, xid) {
      return holderOf(app, xid, decode<Claim>(await guard(() => kv.get(key(app, xid)))));
    },
    async claim(app, xid, id, until) {
      const k = key(app, xid), value = encode({ id, at: now(), until } satisfies Claim);
      for (let round = 0; round < ROUNDS; round++) {
        const e = await guard(() => kv.get(k));
        const c = decode<Claim>(e);
        try {
          if (!c) { await guard(() => kv.create(k, value)); return; }
          if (c.id === id) return;
          // One read of the holder's fence: with two, a fence written between them looked neither
          // live (first read) nor in flight (second), and its claim was taken over.
          const rec = await fences.get(app, c.id);
          if (rec ? rec.external_id === xid : inFlight(c)) throw taken(xid);
          await guard(() => kv.update(k, value, e!.revision));
          return;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
      throw busy();
    },
    async fresh(app, xid, id, until) {
      try {
        await guard(() => kv.create(key(app, xid), encode({ id, at: now(), until } satisfies Claim)));
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    },
    async release(app, xid, id) {
      const k = key(app, xid);
      const e = await guard(() => kv.get(k));
      if (decode<Claim>(e)?.id !== id) return;
      try {
        await guard(() => kv.delete(k, { previousSeq: e!.revision }));
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    },
  };
}
