/**
 * A user's records in the embedded engine (contract §7): the users environment (record, its
 * retention key, learned tables) and geofence presence in the geofence environment. Each part of
 * an erase is one key or one key range, so it costs the same on ten users or ten million; an app's
 * deletion runs in bounded transactions so the HTTP thread is never held long, and running it
 * again finishes what a crash interrupted.
 */
import type { Database } from 'lmdb';
import type { StoredGeofence } from '../schemas/geofence.js';
import type { UserRecord } from '../users/records.js';
import { userKey } from '../users/keys.js';
import { touchKey } from '../users/touch.js';
import { expiresMs } from '../geofences/store.js';
import type { DeletedRecords, ErasedFromRecord, LocalStores, UserRecords } from './kinds.js';

const BATCH = 2000;
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export function embeddedRecords(s: LocalStores): UserRecords {
  return {
    read: async (app, user) => ({ record: s.users.get(userKey(app, user)) as UserRecord | undefined, presence: s.presence.get([app, user]) }),
    async erase(app, user, out) {
      removeUserRecord(s, app, user, out);
      out.geofence_presence += s.geofences.root.transactionSync(() => (s.presence.removeSync([app, user]) ? 1 : 0));
    },
    deleteApp: (app) => deleteLocalApp(s, app),
  };
}

/** Removes the user's record and its retention key in one transaction; adds what it held to `out`. */
function removeUserRecord(s: LocalStores, app: string, user: string, out: ErasedFromRecord): void {
  s.users.transactionSync(() => {
    const key = userKey(app, user);
    const rec = s.users.get(key) as UserRecord | undefined;
    if (!rec) return;
    out.user_records++;
    out.visit_history_places += Object.keys(rec.h ?? {}).length;
    out.past_stays += (rec.v?.length ?? 0) / 4;
    if (rec.s?.c) out.open_stays++;
    if (rec.d !== undefined) s.users.removeSync(touchKey(rec.d, app, user));
    s.users.removeSync(key);
  });
}

/**
 * Users and their retention keys, learned tables (['apx', app, …], ['pv', app, …], ['bl', app, …],
 * ['kp', app], ['ks', name, app]), geofences with their tag, expiry and change-log entries, presence.
 */
async function deleteLocalApp(s: LocalStores, app: string): Promise<DeletedRecords> {
  const out: DeletedRecords = { users: 0, learned: 0, geofences: 0, geofence_presence: 0 };
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
  return out;
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
