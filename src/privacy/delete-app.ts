/**
 * Deleting an app (contract §7): its record first (its key answers 401 unknown_app at once), then
 * everything stored for it, in bounded transactions so the HTTP thread is never held long:
 * users and their retention keys, learned tables (['apx', app, …], ['pv', app, …], ['bl', app, …], ['kp', app],
 * ['ks', name, app]), geofences with their tag, expiry and change-log entries, presence, and the
 * outbox's entries, pending and dead, and the app's registered beacons. Running it again finishes what a crash interrupted.
 */
import type { Database } from 'lmdb';
import type { AppRegistry } from '../apps/registry.js';
import type { StoredGeofence } from '../schemas/geofence.js';
import type { UserRecord } from '../users/records.js';
import { expiresMs } from '../geofences/store.js';
import type { PrivacyStores } from './stores.js';
import { touchKey } from '../users/touch.js';
import { deleteClusterApp } from './cluster.js';

const BATCH = 2000;
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export interface DeletedApp { users: number; learned: number; geofences: number; geofence_presence: number; triggers: number; recent_detections: number; beacons: number }

export async function deleteApp(apps: AppRegistry, s: PrivacyStores, app: string): Promise<DeletedApp | null> {
  const known = await apps.delete(app);
  const out: DeletedApp = { users: 0, learned: 0, geofences: 0, geofence_presence: 0, triggers: 0, recent_detections: 0, beacons: 0 };
  // Records of an app deleted before (and interrupted) are still found by its key.
  out.users = await drain(s.users as Database, ['u', app], ['u', app + '\u0000'], (key, value) => {
    const d = (value as UserRecord).d;
    if (d !== undefined) s.users.removeSync(touchKey(d, app, (key as string[])[2]));
  });
  for (const kind of ['apx', 'pv', 'bl']) out.learned += await drain(s.users as Database, [kind, app], [kind, app + '\u0000']);
  s.users.transactionSync(() => {
    if (s.users.removeSync(['kp', app])) out.learned++;
    const sparse = [...s.users.getKeys({ start: ['ks'], end: ['ks\u0000'] })].filter((k) => (k as string[])[2] === app);
    for (const k of sparse) if (s.users.removeSync(k)) out.learned++;
  });

  const root = s.geofences.root;
  const fences = root.openDB<StoredGeofence, [string, string]>({ name: 'fences' });
  const tags = root.openDB({ name: 'tags' }), expiry = root.openDB({ name: 'expiry' });
  out.geofences = await drain(fences as Database, [app, ''], [app + '\u0000'], (_k, rec) => {
    const r = rec as StoredGeofence;
    if (r.tag !== null) tags.removeSync([app, r.tag, r.id]);
    if (r.expires_at !== null) expiry.removeSync([expiresMs(r), app, r.id]);
  });
  // The change log last: a detection worker's index of this app (never asked again) stays harmless.
  await drain(root.openDB({ name: 'changes' }), [app], [app + '\u0000']);
  root.transactionSync(() => root.openDB({ name: 'seq' }).removeSync(app));
  out.geofence_presence = await drain(s.presence as Database, [app], [app + '\u0000']);

  // In cluster mode this store is the cluster's registry (beacons/cluster-store.ts): gone for every node.
  if (s.beacons) out.beacons = await s.beacons.deleteApp(app);
  for (let n: number; (n = await s.outbox.deleteApp(app, BATCH)) > 0;) { out.triggers += n; await yieldTurn(); }
  if (s.recent) out.recent_detections = await s.recent.deleteApp(app);
  if (s.cluster) {
    const c = await deleteClusterApp(s.cluster, app);
    out.users += c.users; out.learned += c.learned; out.geofences += c.geofences; out.geofence_presence += c.geofence_presence;
  }
  const any = Object.values(out).some((n) => n > 0);
  return known || any ? out : null;
}

/** Removes every key in [start, end) of `db`, a batch per transaction; answers how many. */
async function drain(db: Database, start: unknown[], end: unknown[], each?: (key: unknown, value: unknown) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = [...db.getRange({ start: start as never, end: end as never, limit: BATCH })];
    if (batch.length === 0) return total;
    db.transactionSync(() => {
      for (const { key, value } of batch) {
        each?.(key, value);
        db.removeSync(key);
      }
    });
    total += batch.length;
    await yieldTurn();
  }
}
