/**
 * Leases in the KV bucket `dwell-leases`, whose TTL is the lease's length: the holder renews by
 * writing again with the revision it holds; when it dies its key ages out and the next node to
 * ask takes it. So a sweep runs once per cluster, and never stops for longer than the TTL.
 */
import type { KV } from '@nats-io/kv';
import type { LeaseState } from '../types.js';
import { decode, encode, guard, isConflict } from './kv.js';

export const LEASE_TTL_MS = 10_000;

export function natsLease(kv: KV, holder: string): LeaseState {
  const held = new Map<string, number>();
  return {
    async hold(name) {
      try {
        const rev = held.get(name);
        if (rev !== undefined) {
          held.set(name, await guard(() => kv.update(name, encode(holder), rev)));
          return true;
        }
        const e = await guard(() => kv.get(name));
        if (decode<string>(e) === holder) {
          held.set(name, await guard(() => kv.update(name, encode(holder), e!.revision)));
          return true;
        }
        if (decode(e) !== undefined) return false;
        held.set(name, await guard(() => kv.create(name, encode(holder))));
        return true;
      } catch (err) {
        held.delete(name);
        if (isConflict(err)) return false;
        throw err;
      }
    },
  };
}
