/**
 * Place triggers in the embedded engine: `<dataDir>/place-triggers.mdb`, records under
 * [app, id] and a per-app change counter, so a detection worker (worker-source.ts) rebuilds its
 * compiled matcher only when the app's triggers changed: one LMDB read per request otherwise.
 * The server's main thread is the one writer; writes of one app are queued one after another, so
 * the count checked against the 100 a create may add is the count it writes into.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { StoredPlaceTrigger } from '../schemas/place-trigger.js';
import { PLACE_LIMITS } from '../schemas/place-trigger.js';
import { clock } from '../time/clock.js';
import { newTrigger, page, type PlaceTriggerApi } from './records.js';

const END = '\uffff';
export const PLACE_TRIGGERS_FILE = 'place-triggers.mdb';

export interface PlaceTriggerEnv { root: RootDatabase; triggers: Database<StoredPlaceTrigger, [string, string]>; seq: Database<number, string> }

export function openPlaceTriggerEnv(dataDir: string): PlaceTriggerEnv {
  fs.mkdirSync(dataDir, { recursive: true });
  const root = open({ path: path.join(dataDir, PLACE_TRIGGERS_FILE), compression: false });
  return { root, triggers: root.openDB({ name: 'triggers' }), seq: root.openDB({ name: 'seq' }) };
}

export function allOf(env: PlaceTriggerEnv, app: string): StoredPlaceTrigger[] {
  return [...env.triggers.getRange({ start: [app, ''], end: [app, END] }).map(({ value }) => value)];
}

export function lmdbPlaceTriggers(env: PlaceTriggerEnv, now: () => number = clock.now): PlaceTriggerApi & { close(): Promise<void> } {
  const queues = new Map<string, Promise<unknown>>();
  /** Runs `fn` after the app's earlier writes. */
  const serial = <T>(app: string, fn: () => Promise<T>): Promise<T> => {
    const run = (queues.get(app) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(() => undefined, () => undefined);
    queues.set(app, tail);
    void tail.then(() => { if (queues.get(app) === tail) queues.delete(app); });
    return run;
  };
  const write = async (app: string, fn: () => void) => {
    await env.root.transaction(() => { fn(); env.seq.put(app, (env.seq.get(app) ?? 0) + 1); });
  };
  return {
    get: (app, id) => env.triggers.get([app, id]),
    list: (app, q) => page(allOf(env, app), q.after, q.limit),
    all: (app) => allOf(env, app),
    create: (app, input) => serial(app, async () => {
      if (allOf(env, app).length >= PLACE_LIMITS.perApp) return undefined;
      const rec = newTrigger(app, input, now());
      await write(app, () => env.triggers.put([app, rec.id], rec));
      return rec;
    }),
    update: (app, id, fn) => serial(app, async () => {
      const old = env.triggers.get([app, id]);
      if (!old) return undefined;
      const next = fn(old);
      await write(app, () => env.triggers.put([app, id], next));
      return next;
    }),
    delete: (app, id) => serial(app, async () => {
      if (!env.triggers.get([app, id])) return false;
      await write(app, () => env.triggers.remove([app, id]));
      return true;
    }),
    dropApp: (app) => serial(app, async () => {
      const ids = allOf(env, app).map((r) => r.id);
      if (ids.length) await write(app, () => { for (const id of ids) env.triggers.remove([app, id]); });
      return ids.length;
    }),
    close: () => env.root.close(),
  };
}
