/**
 * Records of an app kept one a key, `<app>.<id>`, in a KV bucket (geofences, place triggers): the
 * reads, the revision-checked read-modify-write and the delete that every such bucket needs.
 * A change is written on the revision read, and read again and re-run when another node got there
 * first, so two nodes never both win; after MAX_ROUNDS losses the caller is told nothing changed.
 */
import type { KV } from '@nats-io/kv';
import { decode, encode, guard, isConflict, keysOf } from './kv.js';

const MAX_ROUNDS = 64;

export interface AppRecords<T> {
  get(app: string, id: string): Promise<T | undefined>;
  /** Every record of the app, by id. */
  scan(app: string): Promise<T[]>;
  /** `fn` on the stored record (undefined when there is none): its answer is written, unless undefined. */
  update(app: string, id: string, fn: (old: T | undefined) => T | undefined): Promise<T | undefined>;
  /** Deletes the record if `present` says it is there (a live one); answers whether it did. */
  remove(app: string, id: string, present: (rec: T | undefined) => boolean): Promise<boolean>;
}

export function appRecords<T>(kv: KV): AppRecords<T> {
  const key = (app: string, id: string) => `${app}.${id}`;
  const get = async (app: string, id: string) => decode<T>(await guard(() => kv.get(key(app, id))));
  return {
    get,
    async scan(app) {
      const out: T[] = [];
      for (const k of (await keysOf(kv, `${app}.*`)).sort()) {
        const rec = decode<T>(await guard(() => kv.get(k)));
        if (rec) out.push(rec);
      }
      return out;
    },
    async update(app, id, fn) {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const e = await guard(() => kv.get(key(app, id)));
        const next = fn(decode<T>(e));
        if (!next) return undefined;
        try {
          await guard(() => kv.update(key(app, id), encode(next), e!.revision));
          return next;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
      return undefined;
    },
    async remove(app, id, present) {
      const e = await guard(() => kv.get(key(app, id)));
      if (!present(decode<T>(e))) return false;
      try {
        await guard(() => kv.delete(key(app, id), { previousSeq: e!.revision }));
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    },
  };
}
