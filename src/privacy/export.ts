/**
 * The right of access (contract §7): everything stored for one user in one app, as JSON. Field
 * names say what each value is; times are ISO 8601. The stored record is shown in full, under
 * readable names, so nothing held is left out.
 */
import type { UserRecord } from '../users/records.js';
import { answeredOut } from '../users/answered.js';
import type { PrivacyKinds } from './kinds.js';

const iso = (ms: number) => new Date(ms).toISOString();

export interface UserExport {
  user: string;
  record: Record<string, unknown> | null;
  geofence_presence: { inside_geofences: string[]; last_change_at: string | null } | null;
  triggers: Array<Record<string, unknown>>;
  /** Requests and answers kept for the explorer (recent/). */
  recent_detections: unknown[];
}

export async function exportUser(s: PrivacyKinds, app: string, user: string): Promise<UserExport> {
  const { record: rec, presence } = await s.records.read(app, user);
  const triggers: Array<Record<string, unknown>> = [];
  // Pending and dead, whichever node accepted them: the queue is the cluster's in cluster mode.
  for (const e of await s.outbox.userTriggers(app, user)) triggers.push({ ...e.state, trigger: e.trigger });
  return {
    user,
    record: rec ? recordOut(rec) : null,
    geofence_presence: presence ? { inside_geofences: presence.inside, last_change_at: presence.last ? iso(presence.last) : null } : null,
    triggers,
    recent_detections: (await s.recent?.ofUser(app, user)) ?? [],
  };
}

function recordOut(rec: UserRecord): Record<string, unknown> {
  const stays = [];
  const v = rec.v ?? [], t = rec.t ?? [];
  for (let i = 0; i + 3 < v.length; i += 4) {
    const k = i; // t holds 4 entries per stay, parallel to v's 4 numbers
    const best = [[t[k], t[k + 1]], [t[k + 2], t[k + 3]]].filter(([id]) => id).map(([id, p]) => ({ place_id: id, probability: p }));
    stays.push({ lat: v[i], long: v[i + 1], accuracy_m: v[i + 2], start_time: iso(v[i + 3] * 1000), ranked_places: best });
  }
  return {
    visit_history: Object.entries(rec.h ?? {}).map(([place_id, e]) => ({
      place_id, first_visit_time: iso(e.f), latest_visit_time: iso(e.l), previous_visit_time: e.p >= 0 ? iso(e.p) : null,
      visit_count: Math.round(e.n * 1000) / 1000, latest_visit_id: e.i || null,
    })),
    counted_visit_ids: rec.r ?? [],
    past_stays: stays,
    open_stay: rec.s ?? null,
    // What each answered visit keeps for feedback, and the feedback given (contract §10).
    answered_visits: answeredOut(rec),
    last_written_before: rec.d !== undefined ? iso(rec.d) : null,
  };
}
