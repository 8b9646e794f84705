/**
 * The one place a detection's outcome gets contract §12's `integrity` on its events (visits get
 * theirs where they are detected: detect/structured.ts, unstructured.ts), and the count of flags
 * the HTTP thread adds to /metrics (`dwell_integrity_flags_total{flag}`).
 */
import type { DetectOutcome } from '../schemas/detect-outcome.js';
import type { Integrity, IntegrityFlag } from '../schemas/visit.js';
import type { Checks } from './check.js';
import { flagsOf, integrityOf } from './flags.js';

type Outcome = Extract<DetectOutcome, { ok: true }>;
interface Raised { timestamp: string; location: { lat: number; long: number }; integrity?: Integrity }

const keyOf = (timestamp: string, lat: number, long: number) => `${timestamp}\u0000${lat}\u0000${long}`;

/** Stamps every geofence, place and region event with the flags of the location that raised it, and counts the flags. */
export function stampOutcome(out: Outcome, checks: Checks | undefined): Outcome {
  const lists: Raised[][] = [out.geofence_events, out.place_events, out.region_events];
  if (lists.some((l) => l.length)) {
    const bits = new Map<string, number>();
    if (checks) {
      checks.signals.forEach((s, i) => {
        if (!s.location) return;
        const k = keyOf(s.timestamp, s.location.lat, s.location.long);
        bits.set(k, (bits.get(k) ?? 0) | checks.bits[i]);
      });
    }
    for (const list of lists) for (const e of list) e.integrity = integrityOf(flagsOf(bits.get(keyOf(e.timestamp, e.location.lat, e.location.long)) ?? 0));
  }
  let counts: Partial<Record<IntegrityFlag, number>> | undefined;
  const count = (i: Integrity | undefined) => {
    if (!i || i.passed) return;
    counts ??= {};
    for (const f of i.flags) counts[f] = (counts[f] ?? 0) + 1;
  };
  for (const item of out.items) count(item.visit.integrity);
  for (const list of lists) for (const e of list) count(e.integrity);
  if (counts) out.tally.flags = counts;
  return out;
}
