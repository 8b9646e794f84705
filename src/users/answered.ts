/**
 * The visits Dwell answered a user with venues, newest last and bounded, each with what its stay's
 * signals showed and any feedback given on it (contract §10). Feedback arrives after the answer,
 * when the request's signals are gone: what a known venue teaches (feedback/teach.ts) is kept
 * here, small, until then. Pure record operations, run inside the user's read-modify-write.
 */
import type { UserRecord } from './records.js';
import type { AnsweredVisit } from './stored.js';
import { integrityOf } from '../integrity/flags.js';

export type { AnsweredVisit, FeedbackType, GivenFeedback } from './stored.js';

/**
 * How many answered visits a user's record keeps for feedback: an app asks right after a visit
 * ("Are you at X?"), and the record is rewritten on every request, so a few days of visits.
 */
export const MAX_ANSWERED = 32;
export const MAX_JOINED = 4;
export const MAX_BEACONS = 3;

/**
 * Keeps an answered visit (again: a stream reports a stay on confirmation and when it ends, a
 * retried request answers again). Feedback already given on it stands; answers the kept entry,
 * whose `v` is the venue to credit in the history ('' when the user said it was no stop).
 */
export function rememberAnswered(rec: UserRecord, a: AnsweredVisit): AnsweredVisit {
  const list = (rec.a ??= []);
  const k = list.findIndex((x) => x.i === a.i);
  if (k >= 0) {
    const old = list[k];
    if (old.f) { a.f = old.f; a.v = old.v; if (old.t) a.t = 1; }
    list.splice(k, 1);
  }
  list.push(a);
  if (list.length > MAX_ANSWERED) list.splice(0, list.length - MAX_ANSWERED);
  return a;
}

export const answeredOf = (rec: UserRecord | undefined, visitId: string): AnsweredVisit | undefined => rec?.a?.find((x) => x.i === visitId);

/**
 * Takes one visit (starting at `start`) away from a venue's history entry: the history keeps the
 * first, latest and previous starts only, so an earlier visit it no longer holds is not restored.
 */
export function forgetPlaceVisit(rec: UserRecord, placeId: string, start: number): void {
  const e = rec.h[placeId];
  if (!e) return;
  if (e.f === start && e.l === start) { delete rec.h[placeId]; return; }
  if (e.l === start) { e.l = e.p >= 0 ? e.p : e.f; e.p = -1; e.i = ''; } else if (e.p === start) e.p = -1;
  if (e.f === start) e.f = e.p >= 0 ? e.p : e.l;
}

/** The index of an answered visit's stay among the past stays (records.ts `v`), or -1. */
function stayIndex(rec: UserRecord, a: AnsweredVisit): number {
  const v = rec.v ?? [];
  const s = Math.round(a.s / 1000), lat = a.la / 1e6, lon = a.lo / 1e6;
  for (let k = v.length - 4; k >= 0; k -= 4) {
    if (v[k + 3] === s && Math.abs(v[k] - lat) < 2e-6 && Math.abs(v[k + 1] - lon) < 2e-6) return k / 4;
  }
  return -1;
}

/**
 * The stay's label in the past stays becomes `venueId`, certain (probability 1), and the stay is
 * added when it was not among them (an unconfirmed stay the user confirms); null removes it.
 */
export function labelStay(rec: UserRecord, a: AnsweredVisit, venueId: string | null, labelsPerStay: number): void {
  const k = stayIndex(rec, a);
  const v = (rec.v ??= []), t = (rec.t ??= []);
  while (t.length < v.length) t.push('', 0);
  if (venueId === null) {
    if (k >= 0) { v.splice(k * 4, 4); t.splice(k * labelsPerStay, labelsPerStay); }
    return;
  }
  const label = [venueId, 1, '', 0];
  if (k >= 0) { t.splice(k * labelsPerStay, labelsPerStay, ...label); return; }
  v.push(a.la / 1e6, a.lo / 1e6, a.sg, Math.round(a.s / 1000));
  t.push(...label);
  // Counted, so that the stream's report at the stay's end does not add it again (records.ts addStay).
  if (!rec.r.includes(a.i)) rec.r.push(a.i);
}

/** The answered visits under readable names, for the user's export (contract §7). */
export function answeredOut(rec: UserRecord): Array<Record<string, unknown>> {
  const iso = (ms: number) => new Date(ms).toISOString();
  return (rec.a ?? []).map((a) => ({
    visit_id: a.i, start_time: iso(a.s), lat: a.la / 1e6, long: a.lo / 1e6, accuracy_m: a.sg,
    hour_of_week: a.h, dwell_s: a.d, indoor_share: a.o < 0 ? null : a.o / 100,
    answered_place_id: a.r || null, history_place_id: a.v || null,
    joined_networks: a.w ?? [], beacons_heard: pairs(a.b).map(([key, x]) => ({ beacon: key, rssi_above_tx_power: x })),
    feedback: a.f ? { type: a.f.k, ...(a.f.v ? { venue_id: a.f.v } : {}), given_at: iso(a.f.at) } : null,
    integrity: integrityOf(a.g ?? 0),
  }));
}

function pairs(b: ReadonlyArray<string | number> | undefined): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let i = 0; b && i + 1 < b.length; i += 2) out.push([b[i] as string, b[i + 1] as number]);
  return out;
}
