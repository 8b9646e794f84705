/**
 * A user's records (contract §7) as privacy reaches them in either engine: through the state
 * kit's kinds (state/types.ts) and their own per-user and per-app operations, never their keys or
 * databases. Presence is part of the user's record (users/presence.ts), so removing the record
 * removes it. Triggers, recent detections, beacons and place triggers are the other kinds of
 * kinds.ts, reached by their own operations.
 *
 * An app's deletion goes a bounded number of records at a time, with a turn of the event loop
 * between, so the HTTP thread is never held long; running it again finishes what a crash
 * interrupted (every part is found by the app's key, the app's record being gone already).
 */
import type { StateKit } from '../state/types.js';
import type { UserRecord } from '../users/records.js';
import { holdsFences, type DeletedRecords, type ErasedFromRecord, type UserRecords } from './kinds.js';
import { setImmediate as yieldTurn } from 'node:timers/promises';

/** Records removed side by side before the loop turns: one commit in the embedded engine, parallel requests in the cluster. */
const BATCH = 256;

export type RecordKinds = Pick<StateKit, 'users' | 'learned' | 'fences'>;

export function kitRecords(s: RecordKinds): UserRecords {
  return {
    read: (app, user) => s.users.read(app, user),
    erase: (app, user, out) => eraseUser(s, app, user, out),
    deleteApp: (app) => deleteAppRecords(s, app),
  };
}

/** What one erased record held, added to `out`. */
function count(rec: UserRecord, out: ErasedFromRecord): void {
  out.user_records++;
  out.visit_history_places += Object.keys(rec.h ?? {}).length;
  out.past_stays += (rec.v?.length ?? 0) / 4;
  if (rec.s?.c) out.open_stays++;
  if (holdsFences(rec)) out.geofence_presence++;
}

/**
 * Removes one user's record (with its presence, and in the embedded engine its retention key);
 * counts what it held when this call removed it (a concurrent erase of the same user counts once).
 */
async function eraseUser(s: RecordKinds, app: string, user: string, out: ErasedFromRecord): Promise<void> {
  const rec = await s.users.read(app, user);
  if (rec && (await s.users.remove(app, user))) count(rec, out);
}

/** Everything the kit holds for an app: users (with presence), learned values, geofences. */
async function deleteAppRecords(s: RecordKinds, app: string): Promise<DeletedRecords> {
  const out: DeletedRecords = { users: 0, learned: 0, geofences: 0, geofence_presence: 0 };
  await inBatches(await s.users.users(app), async (user) => {
    const rec = await s.users.read(app, user);
    if (await s.users.remove(app, user)) { out.users++; if (holdsFences(rec)) out.geofence_presence++; }
  });
  out.learned = await s.learned.dropApp(app);
  // Expired fences not purged yet are invisible and fail to remove: the expiry sweep takes them.
  await inBatches(await s.fences.scan(app), async (rec) => { if (await s.fences.remove(app, rec.id)) out.geofences++; });
  return out;
}

async function inBatches<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) {
    await Promise.all(items.slice(i, i + BATCH).map(each));
    if (i + BATCH < items.length) await yieldTurn();
  }
}
