/**
 * What a stay answered with venues keeps for feedback on it (users/answered.ts): its centre, hour,
 * dwell and indoor look, the networks it joined and the beacons nobody registered that it heard,
 * and the venue it was ranked to. Feedback then teaches from these as from a stay whose venue is
 * known (feedback/teach.ts).
 */
import { MAX_BEACONS, MAX_JOINED, type AnsweredVisit } from '../users/answered.js';
import type { Assessment } from './assess.js';

export function answeredVisit(a: Assessment, id: string, startMs: number): AnsweredVisit {
  const out: AnsweredVisit = {
    i: id, s: startMs,
    la: Math.round(a.centre.lat * 1e6), lo: Math.round(a.centre.lon * 1e6), sg: Math.round(a.centre.sigma * 10) / 10,
    h: a.hourOfWeek, d: Math.round(a.dwellS), o: Number.isNaN(a.indoor) ? -1 : Math.round(a.indoor * 100),
    r: a.ranked[0]?.venue.id ?? '', v: a.ranked[0]?.venue.id ?? '',
  };
  let w: string[] | undefined;
  for (const h of a.heard) if (h.active && h.bssid && !w?.includes(h.bssid) && (w ??= []).length < MAX_JOINED) w.push(h.bssid);
  if (w) out.w = w;
  const un = a.beacons?.unregistered;
  if (un?.length) out.b = un.slice(0, MAX_BEACONS).flatMap(([key, x]) => [key, Math.round(x * 10) / 10]);
  if (!a.ownFixes) out.x = 1;
  return out;
}
