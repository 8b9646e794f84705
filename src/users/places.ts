/**
 * Home and work (contract §2 `user_place`), learned per user from their own stays: pure data in,
 * data out, run inside the user's read-modify-write. The rule (docs/api.md, "Home and work"):
 * - a confirmed stay is a *night* at its centre when it covers at least NIGHT_MIN_S of local
 *   00:00–05:00 (local: the signals' own offset), and a *working day* when, on a local Monday to
 *   Friday, it covers at least WORK_MIN_S of 09:00–17:00;
 * - a confirmed stay is a *residential day* when its ranking puts at least RES_SHARE of its
 *   probability on private homes (detect/assess.ts homeShares): the place is homes, whichever of
 *   them the ranking named, so the evidence is about the place, not about an answer;
 * - stays within MERGE_M of a place already kept are that place (its centre moves to their mean);
 * - home is the place with the most distinct nights and residential days together, among the
 *   places with a residential day or MIN_NIGHTS nights (issue 45: a private home is home from its
 *   first stay, when it is the user's most lived-in place; where the store has no private homes,
 *   three nights as before); work is the place with the most distinct working days, once it has
 *   MIN_DAYS, where no night was spent, that is not residential and lies farther than MERGE_M
 *   from home;
 * - a visit whose centre lies within MERGE_M of home is "home" (when home was learned from
 *   residential days, only if the visit is itself residential or a night: the café downstairs is
 *   not home), else of work "work", else null;
 * - a stay the ranking calls lodging (RES_SHARE of it) is neither a night nor a working day.
 * Days are counted as distinct local dates, so a stay reported twice or uploaded out of order
 * counts once. What is kept is the user's personal data: it lives in their record (records.ts
 * `up`), is exported, erased and retained with it, and is never read for another user.
 */
import { M_PER_DEG, mPerDegLon } from '../geo/distance.js';
import { DAY_MS, datesOf, type StaySpan } from './place-dates.js';

export { NIGHT_MIN_S, RES_SHARE, WORK_MIN_S, datesOf, spanOfAnswered, type StaySpan } from './place-dates.js';

export const MERGE_M = 50;
export const MIN_NIGHTS = 3;
export const MIN_DAYS = 3;
/**
 * Places kept per user, and distinct dates kept per place: the newest 10 tell home from a
 * holiday, and the record is decoded on every request of its user (30 dates cost 3.6 % more
 * instructions a request, all of it in the garbage collector; 10, none: docs/performance.md).
 */
const MAX_PLACES = 8;
const MAX_DATES = 10;
/** A place's centre is a running mean of at most this many stays, so it can follow a move. */
const MAX_WEIGHT = 20;

/** A place the user stays at, as kept in their record. */
export interface KeptPlace {
  /** Centre, degrees. */ la: number; lo: number;
  /** Stays merged into the centre (capped at MAX_WEIGHT). */ w: number;
  /** Local dates (days since 1970-01-01) of the nights spent here, ascending, bounded. */ n: number[];
  /** Local dates of the working days spent here, ascending, bounded. */ d: number[];
  /** Local dates of the residential stays here, ascending, bounded (older records have none). */ r?: number[];
  /** Latest stay here, ms: the least recent place is forgotten first. */ t: number;
}

export type UserPlace = 'home' | 'work' | null;

function metres(p: KeptPlace, lat: number, lon: number): number {
  const dy = (p.la - lat) * M_PER_DEG, dx = (p.lo - lon) * mPerDegLon(lat);
  return Math.sqrt(dx * dx + dy * dy);
}

function addDates(list: number[], dates: readonly number[]): void {
  for (const d of dates) {
    if (list.includes(d)) continue;
    list.push(d);
    list.sort((x, y) => x - y);
    if (list.length > MAX_DATES) list.shift();
  }
}

/** The index of the kept place nearest (lat, lon) within MERGE_M, or -1. */
function nearest(places: readonly KeptPlace[], lat: number, lon: number): number {
  let best = -1, bestM = MERGE_M;
  for (let i = 0; i < places.length; i++) { const m = metres(places[i], lat, lon); if (m <= bestM) { best = i; bestM = m; } }
  return best;
}

/**
 * Learns from one confirmed stay, in the record's places (`up`, changed in place as records.ts
 * does). A stay that is no night, working day or residential day changes nothing: only those say
 * home or work. Answers whether anything changed.
 */
export function learnPlaces(rec: { up?: KeptPlace[] }, s: StaySpan): boolean {
  const { nights, days, res } = datesOf(s);
  if (!nights.length && !days.length && !res.length) return false;
  const places = (rec.up ??= []);
  const best = nearest(places, s.lat, s.lon);
  let p: KeptPlace;
  if (best >= 0) {
    p = places[best];
    const w = Math.min(p.w, MAX_WEIGHT - 1);
    p.la = (p.la * w + s.lat) / (w + 1); p.lo = (p.lo * w + s.lon) / (w + 1);
    p.w = w + 1; p.t = Math.max(p.t, s.endMs);
  } else {
    p = { la: s.lat, lo: s.lon, w: 1, n: [], d: [], t: s.endMs };
    places.push(p);
  }
  addDates(p.n, nights); addDates(p.d, days);
  if (res.length) addDates((p.r ??= []), res);
  if (places.length > MAX_PLACES) {
    // Forget the place with the fewest dates, the least recent among equals; never the one just learned.
    let k = -1;
    for (let i = 0; i < places.length; i++) {
      if (places[i] === p) continue;
      if (k < 0 || score(places[i]) < score(places[k]) || (score(places[i]) === score(places[k]) && places[i].t < places[k].t)) k = i;
    }
    places.splice(k, 1);
  }
  return true;
}

const score = (p: KeptPlace): number => p.n.length + p.d.length + (p.r?.length ?? 0);

/**
 * Takes a stay back (the user said it was no stop, contract §10): its nights and working days
 * leave the place it was learned at, and a place left without any goes. A date another stay there
 * shared goes with it: the record keeps dates, not the stays behind them.
 */
export function forgetPlaces(rec: { up?: KeptPlace[] }, s: StaySpan): void {
  const places = rec.up;
  if (!places?.length) return;
  // The answered visit does not keep its ranking: a residential date there goes with its nights.
  const { nights, days } = datesOf(s);
  const start = Math.floor((s.startMs + s.offsetMin * 60_000) / DAY_MS);
  const best = nearest(places, s.lat, s.lon);
  if (best < 0) return;
  const p = places[best];
  p.n = p.n.filter((d) => !nights.includes(d));
  p.d = p.d.filter((d) => !days.includes(d));
  if (p.r) p.r = p.r.filter((d) => d !== start);
  if (!p.n.length && !p.d.length && !p.r?.length) places.splice(best, 1);
}

const residential = (p: KeptPlace): boolean => (p.r?.length ?? 0) > 0;
/** Evidence of living at a place: its distinct nights and residential days. */
const lived = (p: KeptPlace): number => p.n.length + (p.r?.length ?? 0);

/** The user's home and work among their kept places (either null until learned). */
export function homeAndWork(places: readonly KeptPlace[] | undefined): { home: KeptPlace | null; work: KeptPlace | null } {
  let home: KeptPlace | null = null, work: KeptPlace | null = null;
  for (const p of places ?? []) {
    if (!residential(p) && p.n.length < MIN_NIGHTS) continue;
    if (!home || lived(p) > lived(home)) home = p;
  }
  for (const p of places ?? []) {
    // A place where the user has spent a night, or that is homes, is not their work (working from home before home is learned).
    if (p === home || p.d.length < MIN_DAYS || p.n.length > 0 || residential(p)) continue;
    if (home && metres(home, p.la, p.lo) <= MERGE_M) continue;
    if (!work || p.d.length > work.d.length) work = p;
  }
  return { home, work };
}

/**
 * What a visit centred at (lat, lon) is to the user: "home", "work" or null. With the visit's
 * span, a home learned from residential days is answered only for a visit that is itself
 * residential or a night (without it, by position alone).
 */
export function userPlaceAt(places: readonly KeptPlace[] | undefined, lat: number, lon: number, visit?: StaySpan): UserPlace {
  if (!places?.length) return null;
  const { home, work } = homeAndWork(places);
  if (home && metres(home, lat, lon) <= MERGE_M && (!visit || !residential(home) || looksLived(visit))) return 'home';
  if (work && metres(work, lat, lon) <= MERGE_M) return 'work';
  return null;
}

function looksLived(s: StaySpan): boolean {
  const { nights, res } = datesOf(s);
  return nights.length > 0 || res.length > 0;
}

/** The kept places under readable names, for the user's export (contract §7). */
export function learnedPlacesOut(places: readonly KeptPlace[] | undefined): Record<string, unknown> {
  const { home, work } = homeAndWork(places);
  const date = (d: number) => new Date(d * DAY_MS).toISOString().slice(0, 10);
  const one = (p: KeptPlace) => ({ lat: p.la, long: p.lo, stays: p.w, nights: p.n.map(date), working_days: p.d.map(date), residential_days: (p.r ?? []).map(date),
    latest_stay_end: new Date(p.t).toISOString(), is: p === home ? 'home' : p === work ? 'work' : null });
  return { home: home ? { lat: home.la, long: home.lo } : null, work: work ? { lat: work.la, long: work.lo } : null, places: (places ?? []).map(one) };
}
