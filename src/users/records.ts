/**
 * A user's record, pure data: visit history per venue and the open stay of their signal stream.
 * Updates are plain functions so the store can run them inside one LMDB write transaction.
 */
import type { AnsweredVisit, StreamState } from './stored.js';
import { NO_USER_PRESENCE, type UserPresence } from './presence.js';
import type { KeptPlace } from './places.js';

export interface HistoryEntry {
  /** Start of the first visit, ms. */ f: number;
  /** Start of the latest visit, ms. */ l: number;
  /** Start of the visit before the latest, ms; -1 when none. */ p: number;
  /** Soft count of visits (ranking probabilities summed). */ n: number;
  /** Id of the latest visit, so a repeated report of it is not a new visit. */ i: string;
}

export interface UserRecord {
  h: Record<string, HistoryEntry>;
  /** Visit ids already counted, newest last; bounded. */
  r: string[];
  /** Centres of past stays, flat: lat, lon, sigma (m), start (s); oldest first, bounded. */
  v?: number[];
  /** Per stay in `v`, its two best venues as ranked then: id, probability, id, probability. */
  t?: Array<string | number>;
  s?: StreamState;
  /** End of the time slot of the latest write, ms: its key in the retention index (privacy/touch.ts). */
  d?: number;
  /** Presence by trigger kind (users/presence.ts), kept in the record so one write per request covers both. */
  p?: UserPresence;
  /** Before `p`: the cluster engine's geofence presence; read as `p.fences`, dropped at the next presence write. */
  g?: { inside: string[]; last: number };
  /** Visits answered with venues, newest last, bounded, with any feedback on them (users/answered.ts, contract §10). */
  a?: AnsweredVisit[];
  /** Places the user spends nights or working days at, learned from their stays (users/places.ts, contract §2 user_place). */
  up?: KeptPlace[];
  /** The latest position by signal time: lat, lon, accuracy (m), time (ms), for the next request's `jumped` (integrity/check.ts). */
  j?: number[];
}

const MAX_PLACES = 256;
const MAX_COUNTED = 64;
const MAX_STAYS = 128;
/** Entries per stay in `t`. */
export const LABELS = 4;

export const emptyRecord = (): UserRecord => ({ h: {}, r: [] });

// Named views of the stored keys. The keys stay one letter on disk (a record is rewritten on
// every request of its user, and renaming a key would orphan the records already stored);
// code outside this file reads and writes them through these.
/** Visit history per venue id. */
export const historyOf = (rec: UserRecord): Record<string, HistoryEntry> => rec.h;
/** Centres of past stays, flat: lat, lon, sigma (m), start (s). */
export const stayCentresOf = (rec: UserRecord | undefined): readonly number[] | undefined => rec?.v;
/** Per stay centre, its two best venues as ranked then: id, probability, id, probability. */
export const stayLabelsOf = (rec: UserRecord | undefined): ReadonlyArray<string | number> | undefined => rec?.t;
/** The places the user spends nights or working days at (users/places.ts). */
export const keptPlacesOf = (rec: UserRecord | undefined): KeptPlace[] | undefined => rec?.up;
/** Where the user's signal stream stood after the last request. */
export const streamOf = (rec: UserRecord): StreamState | undefined => rec.s;
export const setStream = (rec: UserRecord, state: StreamState): void => { rec.s = state; };

/** The user's presence, by kind (records written before `p` hold fences only, in `g`). */
export const presenceOf = (rec: UserRecord | undefined): UserPresence =>
  rec?.p ?? (rec?.g ? { fences: rec.g } : NO_USER_PRESENCE);
export const setPresence = (rec: UserRecord, p: UserPresence): UserRecord => {
  rec.p = p;
  delete rec.g;
  return rec;
};

export interface VisitTimes { first: number; last: number }

/**
 * Records a visit to `placeId` starting at `start` and returns its first/last visit times
 * (contract §2): the first visit's start, and the start of the latest visit before this one in
 * time (this visit's own start when none came before it). Uploads arrive out of order: an older
 * visit may become the first, or the one before the latest, but never the latest, so it never
 * moves a later visit's last_visit_time back. Reporting the same visit id again answers the same.
 */
export function recordPlace(rec: UserRecord, placeId: string, visitId: string, start: number): VisitTimes {
  const e = rec.h[placeId];
  if (!e) {
    rec.h[placeId] = { f: start, l: start, p: -1, n: 0, i: visitId };
    evict(rec);
    return { first: start, last: start };
  }
  if (e.i === visitId) {
    // The latest visit again (a stream reports a stay once confirmed and again when it ends).
    e.l = start;
    return { first: Math.min(e.f, start), last: e.p >= 0 && e.p < start ? e.p : start };
  }
  const times = { first: Math.min(e.f, start), last: latestBefore(e, start) };
  if (start > e.l) {
    e.p = e.l; e.l = start; e.i = visitId;
  } else if (start < e.l && start > e.p) {
    e.p = start;
  }
  e.f = times.first;
  return times;
}

/** The latest known visit start before `start`, or `start` itself when none is known. */
function latestBefore(e: HistoryEntry, start: number): number {
  if (e.l < start) return e.l;
  let best = -1;
  if (e.p >= 0 && e.p < start) best = e.p;
  if (e.f < start && e.f > best) best = e.f;
  return best >= 0 ? best : start;
}

/** Adds a visit's ranking probabilities to the soft counts, once per visit id. */
export function countVisit(rec: UserRecord, visitId: string, venues: ReadonlyArray<{ id: string; probability: number }>, start: number): void {
  if (rec.r.includes(visitId)) return;
  rec.r.push(visitId);
  if (rec.r.length > MAX_COUNTED) rec.r.splice(0, rec.r.length - MAX_COUNTED);
  for (const v of venues) {
    let e = rec.h[v.id];
    if (!e) e = rec.h[v.id] = { f: start, l: start, p: -1, n: 0, i: '' };
    e.n += v.probability;
  }
  evict(rec);
}

/** Remembers where a confirmed stay was (its centre, not its ranked venue), once per visit id. */
export function addStay(rec: UserRecord, visitId: string, lat: number, lon: number, sigma: number, startMs: number,
  ranked: ReadonlyArray<{ venue: { id: string }; probability: number }> = []): boolean {
  if (rec.r.includes(visitId)) return false;
  rec.r.push(visitId);
  if (rec.r.length > MAX_COUNTED) rec.r.splice(0, rec.r.length - MAX_COUNTED);
  const v = (rec.v ??= []);
  v.push(lat, lon, sigma, Math.round(startMs / 1000));
  if (v.length > MAX_STAYS * 4) v.splice(0, v.length - MAX_STAYS * 4);
  const t = (rec.t ??= []);
  // Older records had no labels: pad so that t stays parallel to v.
  while (t.length < (v.length / 4 - 1) * LABELS) t.push('', 0);
  for (let k = 0; k < LABELS / 2; k++) { const r = ranked[k]; t.push(r ? r.venue.id : '', r ? Math.round(r.probability * 1000) / 1000 : 0); }
  if (t.length > MAX_STAYS * LABELS) t.splice(0, t.length - MAX_STAYS * LABELS);
  return true;
}

function evict(rec: UserRecord): void {
  const ids = Object.keys(rec.h);
  if (ids.length <= MAX_PLACES) return;
  // Forget the least visited, then the longest unseen.
  ids.sort((a, b) => rec.h[a].n - rec.h[b].n || rec.h[a].l - rec.h[b].l);
  for (let i = 0; i < ids.length - MAX_PLACES; i++) delete rec.h[ids[i]];
}
