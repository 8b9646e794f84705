/**
 * Place triggers in the cluster engine: the KV bucket `dwell-place-triggers`, key `<app>.<id>`.
 * Reads and lists go to the cluster, so a trigger written on one node is read on every other at
 * once; detection threads keep a copy that follows the bucket's watch (mirror.ts). The 100 an app
 * is checked against the bucket's keys before the write: two nodes creating the 100th at the same
 * moment could both pass (an app over by one; accepted, since only the count is at stake).
 */
import type { KV } from '@nats-io/kv';
import type { StoredPlaceTrigger } from '../schemas/place-trigger.js';
import { PLACE_LIMITS } from '../schemas/place-trigger.js';
import { encode, guard, keysOf } from '../state/nats/kv.js';
import { appRecords } from '../state/nats/app-records.js';
import { clock } from '../time/clock.js';
import { newTrigger, page, type PlaceTriggerApi } from './records.js';

export const PLACE_TRIGGERS_BUCKET = 'dwell-place-triggers';

export function natsPlaceTriggers(kv: KV, now: () => number = clock.now): PlaceTriggerApi {
  const records = appRecords<StoredPlaceTrigger>(kv);
  return {
    get: records.get,
    list: async (app, q) => page(await records.scan(app), q.after, q.limit),
    all: records.scan,
    async create(app, input) {
      if ((await keysOf(kv, `${app}.*`)).length >= PLACE_LIMITS.perApp) return undefined;
      const rec = newTrigger(app, input, now());
      await guard(() => kv.create(`${app}.${rec.id}`, encode(rec)));
      return rec;
    },
    update: (app, id, fn) => records.update(app, id, (old) => old && fn(old)),
    delete: (app, id) => records.remove(app, id, (rec) => rec !== undefined),
    async dropApp(app) {
      const keys = await keysOf(kv, `${app}.*`);
      for (const k of keys) await guard(() => kv.delete(k));
      return keys.length;
    },
  };
}
