/**
 * Erasing one user of one app (contract §7): their record (visit history, past stays, open
 * stream stay), its retention key, their geofence presence, and their triggers not yet delivered,
 * pending or dead, and their recent detections, each through its kind's per-user operation.
 * Erasing what is not there counts zeros.
 *
 * Aggregates learned across users (access point places, pooled networks, kind priors) hold no
 * user id and stay.
 */
import type { PrivacyKinds } from './kinds.js';

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

/** Erases each of `users` (the ids the request named) in `app`; answers the counts summed. */
export async function eraseUsers(s: PrivacyKinds, app: string, users: readonly string[]): Promise<Erased> {
  const out = noneErased();
  for (const user of new Set(users)) {
    await s.records.erase(app, user, out);
    const t = await s.outbox.eraseUser(app, user);
    out.pending_triggers += t.pending;
    out.dead_triggers += t.dead;
    if (s.recent) out.recent_detections += await s.recent.eraseUser(app, user);
  }
  return out;
}
