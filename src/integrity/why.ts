/**
 * Why a request's signals were flagged, for the explorer (an operator's explanation, issue 43):
 * each flag with what it rests on. `signal` indexes count the request's signals in order (a
 * structured request's events one after the other); -1 is the position Dwell held from before.
 */
import { INACCURATE_M, type Checks, type LastPosition } from './check.js';
import { CLOCK_SKEW, MOCKED } from './flags.js';
import { haversineM } from '../geo/distance.js';
import { formatUtc } from '../time/stamp.js';

interface At { signal: number; lat: number; long: number; accuracy: number; timestamp: string }

export type Evidence =
  | { flag: 'jumped'; from: At; to: At; distance_m: number; seconds: number; speed_m_s: number | null }
  | { flag: 'wifi_mismatch'; signal: number; bssid: string; position: At; learned_at: { lat: number; long: number; stays: number; users: number }; distance_m: number }
  | { flag: 'mocked' | 'inaccurate'; signal: number; position: At }
  | { flag: 'clock_skew'; signal: number; timestamp: string; ahead_s: number };

const at = (signal: number, p: LastPosition): At => ({ signal, lat: p[0], long: p[1], accuracy: p[2], timestamp: formatUtc(p[3]) });

/** Each flagged signal's evidence, in signal order, jumps and mismatches as the checks found them. */
export function evidenceOf(c: Checks, now: number): Evidence[] {
  const out: Evidence[] = [];
  const position = (i: number): At => {
    const l = c.signals[i].location!;
    return at(i, [l.lat, l.long, l.accuracy ?? 0, c.times[i]]);
  };
  for (const w of c.why ?? []) {
    if (w.flag === 'jumped') {
      const d = haversineM(w.from[0], w.from[1], w.to[0], w.to[1]), s = Math.abs(w.to[3] - w.from[3]) / 1000;
      out.push({ flag: 'jumped', from: at(w.a, w.from), to: at(w.b, w.to), distance_m: Math.round(d), seconds: s, speed_m_s: s ? Math.round((d - w.from[2] - w.to[2]) / s) : null });
    } else {
      const p = w.place, lat = p[1] / p[0], long = p[2] / p[0], pos = position(w.position);
      out.push({ flag: 'wifi_mismatch', signal: w.signal, bssid: w.bssid, position: pos,
        learned_at: { lat, long, stays: p[3], users: Math.max(0, p.length - 8) }, distance_m: Math.round(haversineM(pos.lat, pos.long, lat, long)) });
    }
  }
  for (let i = 0; i < c.signals.length; i++) {
    const b = c.bits[i];
    if (b & MOCKED) out.push({ flag: 'mocked', signal: i, position: position(i) });
    if ((c.signals[i].location?.accuracy ?? 0) > INACCURATE_M) out.push({ flag: 'inaccurate', signal: i, position: position(i) });
    if (b & CLOCK_SKEW) out.push({ flag: 'clock_skew', signal: i, timestamp: c.signals[i].timestamp, ahead_s: Math.round((c.times[i] - now) / 1000) });
  }
  return out;
}
