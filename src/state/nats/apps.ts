/**
 * Apps in the KV bucket `dwell-apps`, keyed by app key (generated: always a valid NATS token).
 * The bucket also holds the secret key's check value (secrets/check.ts) under a key no app key can
 * take; apps are read around it.
 */
import type { KV } from '@nats-io/kv';
import type { AppRecord } from '../../schemas/app.js';
import type { SealedStore } from '../../secrets/unlock.js';
import type { AppsState, Change } from '../types.js';
import { decode, encode, follow, guard, isConflict, keysOf } from './kv.js';

/** App keys are `ak_…`: this one is never an app's. */
const CHECK = 'dwell-key-check';

export function natsApps(kv: KV): AppsState {
  return {
    async all() {
      const out: AppRecord[] = [];
      for (const k of await keysOf(kv)) {
        if (k === CHECK) continue;
        const rec = decode<AppRecord>(await guard(() => kv.get(k)));
        if (rec) out.push(rec);
      }
      return out;
    },
    get: async (appKey) => (appKey === CHECK ? undefined : decode<AppRecord>(await guard(() => kv.get(appKey)))),
    async put(app) { await guard(() => kv.put(app.app_key, encode(app))); },
    async remove(appKey) {
      const e = await guard(() => kv.get(appKey));
      if (!decode(e)) return false;
      await guard(() => kv.delete(appKey));
      return true;
    },
    watch(fn: Change<AppRecord>) {
      return follow(kv, (e) => { if (e.key !== CHECK) fn(e.key, decode<AppRecord>(e)); });
    },
    // Another node may have created an app this one's watch has not brought yet: `get` asks.
    complete: false,
    close: async () => {},
  };
}

/** The bucket for secrets/unlock.ts: conditional writes on the revision each record was read at. */
export function natsSealedStore(kv: KV): SealedStore {
  const revisions = new Map<string, number>();
  const read = async <T>(key: string): Promise<T | undefined> => {
    const e = await guard(() => kv.get(key));
    const v = decode<T>(e);
    if (v === undefined) revisions.delete(key); else revisions.set(key, e!.revision);
    return v;
  };
  const write = async (key: string, value: unknown, known: boolean): Promise<boolean> => {
    try {
      const rev = revisions.get(key);
      if (!known || rev === undefined) await guard(() => kv.create(key, encode(value)));
      else await guard(() => kv.update(key, encode(value), rev));
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  };
  return {
    where: "the cluster's dwell-apps bucket",
    readCheck: () => read<string>(CHECK),
    writeCheck: (next, previous) => write(CHECK, next, previous !== undefined),
    async all() {
      const out: AppRecord[] = [];
      for (const k of await keysOf(kv)) {
        const rec = k === CHECK ? undefined : await read<AppRecord>(k);
        if (rec) out.push(rec);
      }
      return out;
    },
    get: (appKey) => read<AppRecord>(appKey),
    replace: (stored, next) => write(stored.app_key, next, true),
  };
}
