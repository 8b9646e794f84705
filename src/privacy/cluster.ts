/**
 * Contract §7 in cluster mode (§8): erase, export, app deletion and retention against the
 * cluster's state, so they reach what every node wrote. Geofence presence is part of the user's
 * record there (pipeline/thread-cluster.ts), so erasing the record erases it. Triggers stay with
 * the outbox (kinds.ts `outbox`). Retention runs on the node that holds the cluster's
 * lease, once a minute at most: it reads every user's record (no time index in the cluster), so
 * its cost grows with the number of users, not with the number due.
 */
import type { FencesState, LearnedState, LeaseState, UsersState } from '../state/types.js';
import type { DeletedRecords, ErasedFromRecord, UserRecords } from './kinds.js';
import { clock } from '../time/clock.js';

export interface ClusterPrivacy { users: UsersState; learned: LearnedState; fences: FencesState; lease: LeaseState }

/** The cluster's user records, learned values and geofences, as privacy reaches them (kinds.ts). */
export function clusterRecords(c: ClusterPrivacy): UserRecords {
  return {
    async read(app, user) { const record = await c.users.read(app, user); return { record, presence: record?.g }; },
    erase: (app, user, out) => eraseClusterUser(c, app, user, out),
    deleteApp: (app) => deleteClusterApp(c, app),
  };
}

/** Removes one user's record (and with it their presence); adds what it held to `out`. */
async function eraseClusterUser(c: ClusterPrivacy, app: string, user: string, out: ErasedFromRecord): Promise<void> {
  const rec = await c.users.read(app, user);
  if (!rec) return;
  await c.users.remove(app, user);
  out.user_records++;
  out.visit_history_places += Object.keys(rec.h ?? {}).length;
  out.past_stays += (rec.v?.length ?? 0) / 4;
  if (rec.s?.c) out.open_stays++;
  if (rec.g) out.geofence_presence++;
}

/**
 * Everything the cluster holds for an app: users (with presence), learned values, geofences.
 * Its beacons are removed by delete-app.ts through the registry's store, the cluster's one here.
 */
async function deleteClusterApp(c: ClusterPrivacy, app: string): Promise<DeletedRecords> {
  const out = { users: 0, learned: 0, geofences: 0, geofence_presence: 0 };
  for (const user of await c.users.users(app)) {
    const rec = await c.users.read(app, user);
    if (await c.users.remove(app, user)) { out.users++; if (rec?.g) out.geofence_presence++; }
  }
  out.learned = await c.learned.dropApp(app);
  for (const rec of await c.fences.scan(app)) if (await c.fences.remove(app, rec.id)) out.geofences++;
  return out;
}

/** One retention pass if this node holds the lease; answers the users removed. */
export async function sweepClusterUsers(c: ClusterPrivacy, retentionMs: number, now = clock.now()): Promise<number> {
  if (retentionMs <= 0 || !(await c.lease.hold('user-retention'))) return 0;
  return c.users.sweep(now - retentionMs);
}
