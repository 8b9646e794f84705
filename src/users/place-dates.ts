/**
 * The times of a stay that say home or work (users/places.ts, docs/api.md "Home and work"): which
 * local dates it spent a night, a working day or a residential day at its place. Local time is the
 * signals' own offset; a date is the local day (since 1970-01-01), so a night is dated by its
 * morning.
 */
import { hourOfWeek } from '../time/stamp.js';
import type { AnsweredVisit } from './stored.js';

export const NIGHT_MIN_S = 2 * 3600;
export const WORK_MIN_S = 2 * 3600;
/** Share of a stay's ranking on private homes from which it is a residential day. */
export const RES_SHARE = 0.5;

export const DAY_MS = 86_400_000;
const H = 3_600_000;

export interface StaySpan {
  lat: number; lon: number; startMs: number; endMs: number; offsetMin: number;
  /** Shares of the stay's ranking on private homes and on lodging, 0–1 (detect/assess.ts homeShares); absent: none. */
  home?: number; lodging?: number;
}

/** Overlap (ms) of [a0, a1] and [b0, b1]. */
const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/**
 * The local dates whose 00:00–05:00 the stay covers for at least NIGHT_MIN_S, the weekdays whose
 * 09:00–17:00 it covers for WORK_MIN_S, and the local date it starts on when it is residential.
 */
export function datesOf(s: StaySpan): { nights: number[]; days: number[]; res: number[] } {
  const off = s.offsetMin * 60_000;
  // Local time as if it were UTC: local dates are then whole multiples of a day.
  const a = s.startMs + off, b = s.endMs + off;
  const nights: number[] = [], days: number[] = [];
  const res = (s.home ?? 0) >= RES_SHARE ? [Math.floor(a / DAY_MS)] : [];
  // A hotel is neither home nor work to its guests (travellers' hotels were home, and once not
  // home, work: docs/ranking.md).
  if ((s.lodging ?? 0) >= RES_SHARE) return { nights, days, res };
  for (let day = Math.floor(a / DAY_MS); day * DAY_MS <= b; day++) {
    const d0 = day * DAY_MS;
    if (overlap(a, b, d0, d0 + 5 * H) >= NIGHT_MIN_S * 1000) nights.push(day);
    // 1970-01-01 was a Thursday: (day + 4) % 7 is 0 on Sundays.
    const dow = (day + 4) % 7;
    if (dow >= 1 && dow <= 5 && overlap(a, b, d0 + 9 * H, d0 + 17 * H) >= WORK_MIN_S * 1000) days.push(day);
  }
  return { nights, days, res };
}

/**
 * An answered visit's stay as a span (users/answered.ts keeps its start, dwell and local hour of
 * the week of its middle): the offset is that hour against the UTC one, in whole hours.
 */
export function spanOfAnswered(a: AnsweredVisit): StaySpan {
  const mid = a.s + (a.d * 1000) / 2;
  let offH = (a.h - hourOfWeek(mid, 0) + 168) % 168;
  if (offH > 84) offH -= 168;
  return { lat: a.la / 1e6, lon: a.lo / 1e6, startMs: a.s, endMs: a.s + a.d * 1000, offsetMin: offH * 60 };
}
