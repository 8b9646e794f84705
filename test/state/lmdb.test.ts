/** The state contract (contract.ts) against the embedded implementation, in a scratch data directory. */
import { lmdbApps } from '../../src/state/lmdb/apps.js';
import { lmdbUsers, openUsersEnv } from '../../src/state/lmdb/users.js';
import { lmdbLearned } from '../../src/state/lmdb/learned.js';
import { soleLease } from '../../src/state/lmdb/lease.js';
import { GeofenceStore } from '../../src/geofences/store.js';
import { lmdbFences } from '../../src/geofences/lmdb-fences.js';
import { ReplayCache } from '../../src/server/replay-cache.js';
import { tempDir } from '../helpers/server.js';
import { stateContract, type Node } from './contract.js';

stateContract(async () => {
  const dir = tempDir();
  const env = openUsersEnv(dir);
  const geofences = new GeofenceStore(dir);
  const replays = new ReplayCache(dir);
  const apps = lmdbApps(dir);
  // One process owns an embedded store: both "nodes" are it.
  const node: Node = { apps, users: lmdbUsers(env), learned: lmdbLearned(env), fences: lmdbFences(geofences), replays, lease: soleLease() };
  return {
    kind: 'lmdb', a: node, b: node,
    async close() { await replays.close(); await apps.close(); await geofences.close(); await env.close(); },
  };
  // Its cross-node checks cannot fail here; users-commit.test.ts has a second writer that is another process.
}, { where: 'embedded, one handle as both nodes' });
