/**
 * A cluster node's apps: the cluster's apps state (the source of truth, which every node watches)
 * with a copy in the node's apps.mdb, which the delivery worker reads as it reads an embedded
 * node's (apps-db.ts), so it sees an app created on any node. Writes go to the cluster first, then
 * to the copy before they resolve; the changes of other nodes reach the copy through the watch
 * (the registry's, which runs as long as the node does).
 */
import { log } from '../../log.js';
import type { AppsState } from '../types.js';
import { openAppsDb, type AppsDb } from './apps-db.js';
import { dropAppsDb } from './apps-sealed.js';

/**
 * `sealed`: secrets are stored sealed, so the copy is removed first: no value it held in clear
 * outlives the key. Every app of the cluster is copied before this resolves. `openCopy` opens the
 * copy (a test stands in for a database whose writes fail: a full disk cannot be staged portably).
 */
export async function mirroredApps(cluster: AppsState, dataDir: string, sealed: boolean, openCopy: (dir: string) => AppsDb = openAppsDb): Promise<AppsState> {
  if (sealed) dropAppsDb(dataDir);
  const { root, db } = openCopy(dataDir);
  try {
    const all = await cluster.all();
    await root.transaction(() => {
      for (const key of db.getKeys()) db.remove(key);
      for (const app of all) db.put(app.app_key, app);
    });
  } catch (err) {
    await root.close();
    throw err;
  }
  return {
    all: () => cluster.all(),
    get: (appKey) => cluster.get(appKey),
    async put(app) {
      await cluster.put(app);
      await db.put(app.app_key, app);
      await root.flushed;
    },
    async remove(appKey) {
      const gone = await cluster.remove(appKey);
      await db.remove(appKey);
      await root.flushed;
      return gone;
    },
    watch: (fn) => cluster.watch((key, app) => {
      const copied = app ? db.put(key, app) : db.remove(key);
      copied.catch(copyFailed(app ? 'put' : 'remove', key));
      fn(key, app);
    }),
    complete: cluster.complete,
    async close() {
      await cluster.close();
      await root.close();
    },
  };
}

/** The copy is for the delivery worker; a failed write is logged, and the next start copies every app again. */
const copyFailed = (op: string, key: string) => (err: unknown) =>
  log.error('app registry: local copy not written', { op, app_key: key, error: String((err as Error)?.message ?? err) });
