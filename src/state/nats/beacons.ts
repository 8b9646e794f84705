/**
 * Beacon records in the KV bucket `dwell-beacons`, one key per registered identity:
 * `<app>.<uuid, 32 hex>.<major>.<minor>` → the record. The key is the uniqueness of uuid/major/
 * minor within an app: a create is `kv.create` (refused when the key holds a record), an update
 * names the revision it read, so two nodes never both win. Readers keep an in-memory copy that
 * follows the bucket's watch (beacons/mirror.ts); the watch's `caughtUp` lets a reader wait until
 * its copy holds every write acknowledged before it asked.
 */
import type { KV } from '@nats-io/kv';
import type { StoredBeacon } from '../../schemas/beacon.js';
import type { Watching } from '../types.js';
import { decode, encode, follow, guard, keysOf } from './kv.js';

export interface BeaconsState {
  keyOf(b: { app_key: string; uuid: string; major: number; minor: number }): string;
  /** The record under `key` and its revision, read from the cluster (no copy). */
  read(key: string): Promise<{ rec: StoredBeacon | undefined; revision: number }>;
  /** Answers the revision written; throws a conflict (kv.ts isConflict) when the key holds a record. */
  create(rec: StoredBeacon): Promise<number>;
  /** Answers the revision written; throws a conflict when the key moved past `revision`. */
  update(rec: StoredBeacon, revision: number): Promise<number>;
  /** Without `revision`, unconditional; with it, throws a conflict when the key moved past it. */
  remove(key: string, revision?: number): Promise<void>;
  /** The live keys of an app, as the cluster has them now. */
  keys(app: string): Promise<string[]>;
  /** Every entry (latest values first, then each change): the record, or undefined once removed. */
  watch(fn: (key: string, rec: StoredBeacon | undefined, revision: number) => void): Watching;
}

/** The app part of a key (app keys are generated tokens: `ak_` and hex). */
export const appOfKey = (key: string): string => key.slice(0, key.indexOf('.'));

export function natsBeacons(kv: KV): BeaconsState {
  const keyOf = (b: { app_key: string; uuid: string; major: number; minor: number }) =>
    `${b.app_key}.${b.uuid.toLowerCase().replaceAll('-', '')}.${b.major}.${b.minor}`;
  return {
    keyOf,
    async read(key) {
      const e = await guard(() => kv.get(key));
      return { rec: decode<StoredBeacon>(e), revision: e?.revision ?? 0 };
    },
    create: (rec) => guard(() => kv.create(keyOf(rec), encode(rec))),
    update: (rec, revision) => guard(() => kv.update(keyOf(rec), encode(rec), revision)),
    async remove(key, revision) {
      await guard(() => kv.delete(key, revision === undefined ? {} : { previousSeq: revision }));
    },
    keys: (app) => keysOf(kv, `${app}.>`),
    watch: (fn) => follow(kv, (e) => fn(e.key, decode<StoredBeacon>(e), e.revision)),
  };
}
