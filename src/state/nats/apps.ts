/** Apps in the KV bucket `dwell-apps`, keyed by app key (generated: always a valid NATS token). */
import type { KV } from '@nats-io/kv';
import type { AppRecord } from '../../schemas/app.js';
import type { AppsState, Change } from '../types.js';
import { decode, encode, follow, guard, keysOf } from './kv.js';

export function natsApps(kv: KV): AppsState {
  return {
    async all() {
      const out: AppRecord[] = [];
      for (const k of await keysOf(kv)) {
        const rec = decode<AppRecord>(await guard(() => kv.get(k)));
        if (rec) out.push(rec);
      }
      return out;
    },
    get: async (appKey) => decode<AppRecord>(await guard(() => kv.get(appKey))),
    async put(app) { await guard(() => kv.put(app.app_key, encode(app))); },
    async remove(appKey) {
      const e = await guard(() => kv.get(appKey));
      if (!decode(e)) return false;
      await guard(() => kv.delete(appKey));
      return true;
    },
    watch(fn: Change<AppRecord>) {
      return follow(kv, (e) => fn(e.key, decode<AppRecord>(e)));
    },
    close: async () => {},
  };
}
