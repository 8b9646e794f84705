/**
 * The embedded engine's apps (state/types.ts AppsState): apps.mdb under the data directory, which
 * the delivery worker reads too (apps-db.ts). One process owns the directory, so every app there
 * is was written through this process: a watch is told each write of any opening in the process
 * as it commits, and an unknown key is unknown everywhere (`complete`).
 */
import path from 'node:path';
import type { AppRecord } from '../../schemas/app.js';
import type { AppsState, Change } from '../types.js';
import { openAppsDb } from './apps-db.js';

/** Watchers by data directory (kept while the process runs): the openings of one process are the only writers there are. */
const watching = new Map<string, Set<Change<AppRecord>>>();

export function lmdbApps(dataDir: string): AppsState {
  const { root, db } = openAppsDb(dataDir);
  const where = path.resolve(dataDir);
  const watchers = watching.get(where) ?? new Set<Change<AppRecord>>();
  watching.set(where, watchers);
  const tell = (key: string, app: AppRecord | undefined) => { for (const w of watchers) w(key, app); };
  const mine = new Set<Change<AppRecord>>();
  let closed: Promise<void> | undefined;
  return {
    all: async () => [...db.getRange()].map(({ value }) => value),
    get: async (appKey) => db.get(appKey),
    async put(app) {
      await db.put(app.app_key, app);
      await root.flushed; // durable before the admin API answers (lmdb-js flushes after commit)
      tell(app.app_key, app);
    },
    async remove(appKey) {
      if (db.get(appKey) === undefined) return false;
      await db.remove(appKey);
      await root.flushed;
      tell(appKey, undefined);
      return true;
    },
    watch(fn) {
      // Every app at once, in this call: a registry opened on this state holds them when its constructor returns.
      for (const { key, value } of db.getRange()) fn(key, value);
      watchers.add(fn);
      mine.add(fn);
      return { ready: Promise.resolve(), stop: () => { watchers.delete(fn); mine.delete(fn); }, caughtUp: async () => true };
    },
    complete: true,
    // The registry over this state closes it, and so does the kit that opened it: once is closing.
    close() {
      for (const fn of mine) watchers.delete(fn);
      return (closed ??= root.close());
    },
  };
}
