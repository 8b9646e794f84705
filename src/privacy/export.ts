/**
 * The right of access (contract §7): everything stored for one user in one app, as JSON. Field
 * names say what each value is; times are ISO 8601. The stored record is shown in full, under
 * readable names, so nothing held is left out.
 */
import { presenceOf, type UserRecord } from '../users/records.js';
import { answeredOut } from '../users/answered.js';
import { learnedPlacesOut } from '../users/places.js';
import type { PrivacyKinds } from './kinds.js';
import type { FencePresence } from '../geofences/events.js';
import type { PlacePresence } from '../place-triggers/match.js';

type PlacePresenceOut = { inside: Array<{ trigger_id: string; venue_id: string; entered_at: string; dwell_raised: boolean }>; last_change_at: string | null };
const placePresenceOut = (p: PlacePresence): PlacePresenceOut => ({
  inside: Object.entries(p.in).map(([key, [t, raised]]) => {
    const space = key.indexOf(' ');
    return { trigger_id: key.slice(0, space), venue_id: key.slice(space + 1), entered_at: new Date(t).toISOString(), dwell_raised: raised === 1 };
  }),
  last_change_at: p.last ? new Date(p.last).toISOString() : null,
});

const iso = (ms: number) => new Date(ms).toISOString();

export interface UserExport {
  user: string;
  record: Record<string, unknown> | null;
  geofence_presence: { inside_geofences: string[]; last_change_at: string | null; dwell_counting?: Array<{ geofence_id: string; entered_at: string }> } | null;
  /** Contract §11, apps with region events: the user's country (null at sea); absent when none is kept. */
  country_presence?: { country: string | null; last_change_at: string };
  /** Contract §11, apps with place triggers: the venues the user is in, by trigger; absent when none is kept. */
  place_presence?: PlacePresenceOut;
  triggers: Array<Record<string, unknown>>;
  /** Requests and answers kept for the explorer (recent/). */
  recent_detections: unknown[];
}

export async function exportUser(s: PrivacyKinds, app: string, user: string): Promise<UserExport> {
  const rec = await s.records.read(app, user);
  const p = presenceOf(rec);
  const triggers: Array<Record<string, unknown>> = [];
  // Pending and dead, whichever node accepted them: the queue is the cluster's in cluster mode.
  for (const e of await s.outbox.userTriggers(app, user)) triggers.push({ ...e.state, trigger: e.trigger });
  return {
    user,
    record: rec ? recordOut(rec) : null,
    geofence_presence: p.fences ? fencesOut(p.fences) : null,
    ...(p.places ? { place_presence: placePresenceOut(p.places as PlacePresence) } : {}),
    ...(p.country ? { country_presence: { country: p.country.code || null, last_change_at: iso(p.country.last) } } : {}),
    triggers,
    recent_detections: (await s.recent?.ofUser(app, user)) ?? [],
  };
}

function fencesOut(f: FencePresence): NonNullable<UserExport['geofence_presence']> {
  const out: NonNullable<UserExport['geofence_presence']> = { inside_geofences: f.inside, last_change_at: f.last ? iso(f.last) : null };
  // Entries of fences with a dwell whose event has not fired yet (contract §4).
  if (f.dwell) out.dwell_counting = Object.entries(f.dwell).map(([geofence_id, t]) => ({ geofence_id, entered_at: iso(t) }));
  return out;
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
    // Home and work as learned from the user's stays, and the places they were learned from (contract §2 user_place).
    learned_places: learnedPlacesOut(rec.up),
    // The latest position held for the integrity checks (contract §12 jumped).
    last_position: rec.j ? { lat: rec.j[0], long: rec.j[1], accuracy_m: rec.j[2], time: iso(rec.j[3]) } : null,
    last_written_before: rec.d !== undefined ? iso(rec.d) : null,
  };
}
