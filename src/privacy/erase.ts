/**
 * Erasing one user of one app (contract §7): their record (visit history, past stays, open
 * stream stay), its retention key, their geofence presence, and their triggers not yet delivered,
 * pending or dead. Each part is one key or one key range, so an erase costs the same on a store of
 * ten users or ten million. Erasing what is not there counts zeros.
 *
 * Aggregates learned across users (access point places, pooled networks, kind priors) hold no
 * user id and stay.
 */
import type { UserRecord } from '../users/records.js';
import { userKey } from '../users/keys.js';
import { touchKey } from '../users/touch.js';
import type { PrivacyStores } from './stores.js';
import { eraseClusterUser } from './cluster.js';

export interface Erased {
  user_records: number;
  visit_history_places: number;
  past_stays: number;
  open_stays: number;
  geofence_presence: number;
  pending_triggers: number;
  dead_triggers: number;
  recent_detections: number;
}

export const noneErased = (): Erased => ({
  user_records: 0, visit_history_places: 0, past_stays: 0, open_stays: 0, geofence_presence: 0, pending_triggers: 0, dead_triggers: 0, recent_detections: 0,
});

/** Removes the user's record and its retention key in one transaction; answers what it held. */
export function removeUserRecord(s: PrivacyStores, app: string, user: string, out: Erased = noneErased()): Erased {
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
  return out;
}

export function removePresence(s: PrivacyStores, app: string, user: string): number {
  return s.geofences.root.transactionSync(() => (s.presence.removeSync([app, user]) ? 1 : 0));
}

/** Erases each of `users` (the ids the request named) in `app`; answers the counts summed. */
export async function eraseUsers(s: PrivacyStores, app: string, users: readonly string[]): Promise<Erased> {
  const out = noneErased();
  for (const user of new Set(users)) {
    if (s.cluster) await eraseClusterUser(s.cluster, app, user, out);
    else {
      removeUserRecord(s, app, user, out);
      out.geofence_presence += removePresence(s, app, user);
    }
    const t = await s.outbox.eraseUser(app, user);
    out.pending_triggers += t.pending;
    out.dead_triggers += t.dead;
    if (s.recent) out.recent_detections += await s.recent.eraseUser(app, user);
  }
  return out;
}
