/**
 * Per-user records in NATS KV, spread over `partitions` buckets (`dwell-users-<n>`) by a hash of
 * app and user, so user writes spread over the cluster's servers (each bucket is a stream with a
 * leader of its own). Key `<app>.<user as token>`: one app's users are one subject filter.
 * Read-modify-write is optimistic: read with its revision, run the step, write with the expected
 * revision; a writer that lost the race reads again and runs the step again.
 */
import type { KV } from '@nats-io/kv';
import { DwellError } from '../../errors.js';
import { emptyRecord, type UserRecord } from '../../users/records.js';
import type { Step, UsersState } from '../types.js';
import { decode, encode, guard, isConflict, keysOf, token, untoken } from './kv.js';

/** Writers racing for one user: each round lets at least one through, so this bound is never reached in practice. */
const MAX_ROUNDS = 64;

export function partitionOf(app: string, user: string, n: number): number {
  let h = 0x811c9dc5;
  const s = app + '\u0000' + user;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

export function natsUsers(buckets: readonly KV[]): UsersState {
  const at = (app: string, user: string) => ({ kv: buckets[partitionOf(app, user, buckets.length)], key: `${app}.${token(user)}` });
  return {
    async read(app, user) {
      const { kv, key } = at(app, user);
      return decode<UserRecord>(await guard(() => kv.get(key)));
    },
    async modify<T>(app: string, user: string, step: (rec: UserRecord) => Step<T>): Promise<T> {
      const { kv, key } = at(app, user);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const e = await guard(() => kv.get(key));
        const stored = decode<UserRecord>(e);
        const out = step(stored ?? emptyRecord());
        const bytes = out.record === null ? null : encode(out.record);
        try {
          if (bytes === null) {
            if (stored) await guard(() => kv.delete(key, { previousSeq: e!.revision }));
          } else if (e) {
            await guard(() => kv.update(key, bytes, e.revision));
          } else {
            await guard(() => kv.create(key, bytes));
          }
          return out.result;
        } catch (err) {
          // Lost a race: read again and run the step again. (A write retried through a failover
          // whose first try was stored after all also lands here and runs once more: rare, and
          // telling it from a race by the stored bytes would lose real updates that match.)
          if (!isConflict(err)) throw err;
        }
      }
      throw new DwellError('unavailable', 'too many concurrent updates of one user; try again shortly', undefined, 1);
    },
    async remove(app, user) {
      const { kv, key } = at(app, user);
      if (!decode(await guard(() => kv.get(key)))) return false;
      await guard(() => kv.delete(key));
      return true;
    },
    async sweep(cutoffMs) {
      let n = 0;
      for (const kv of buckets) {
        for (const k of await keysOf(kv)) {
          const e = await guard(() => kv.get(k));
          const rec = decode<UserRecord>(e);
          if (!rec || (rec.d ?? 0) >= cutoffMs) continue;
          try {
            await guard(() => kv.delete(k, { previousSeq: e!.revision }));
            n++;
          } catch (err) {
            if (!isConflict(err)) throw err; // written meanwhile: not idle
          }
        }
      }
      return n;
    },
    async users(app) {
      const out: string[] = [];
      for (const kv of buckets) {
        for (const k of await keysOf(kv, `${app}.*`)) {
          if (decode(await guard(() => kv.get(k)))) out.push(untoken(k.slice(app.length + 1)));
        }
      }
      return out;
    },
  };
}
