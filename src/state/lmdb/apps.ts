/**
 * Apps in the embedded store (apps-db.ts): one process owns the data directory, so a watch is the
 * changes this object makes, delivered at once.
 */
import type { AppRecord } from '../../schemas/app.js';
import type { AppsState, Change } from '../types.js';
import { openAppsDb } from './apps-db.js';

export function lmdbApps(dataDir: string): AppsState {
  const { root, db } = openAppsDb(dataDir);
  const watchers = new Set<Change<AppRecord>>();
  const tell = (key: string, app: AppRecord | undefined) => { for (const w of watchers) w(key, app); };
  return {
    all: async () => [...db.getRange()].map(({ value }) => value),
    get: async (key) => db.get(key),
    async put(app) { await db.put(app.app_key, app); await root.flushed; tell(app.app_key, app); },
    async remove(key) {
      if (db.get(key) === undefined) return false;
      await db.remove(key);
      await root.flushed;
      tell(key, undefined);
      return true;
    },
    watch(fn) {
      for (const { key, value } of db.getRange()) fn(key, value);
      watchers.add(fn);
      return { ready: Promise.resolve(), stop: () => { watchers.delete(fn); } };
    },
    close: () => root.close(),
  };
}
