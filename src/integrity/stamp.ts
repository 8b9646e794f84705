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

/** Stamps every geofence, place and region event with the flags of the location that raised it, and counts the flags. */
export function stampOutcome(out: Outcome, checks: Checks | undefined): Outcome {
  const lists: Raised[][] = [out.geofence_events, out.place_events, out.region_events];
  if (lists.some((l) => l.length)) {
    // The located signals by timestamp (an event carries its fix's own string), a chain through
    // `same` for signals of one timestamp; an event's coordinates compared as numbers: no key
    // formatted a signal (number to string for every coordinate cost about 150 k instructions a
    // request with events, bench:place-triggers).
    let at: Map<string, number> | undefined, same: Int32Array | undefined;
    if (checks) {
      const { signals } = checks;
      at = new Map(); same = new Int32Array(signals.length);
      for (let i = 0; i < signals.length; i++) {
        if (!signals[i].location) continue;
        const ts = signals[i].timestamp;
        same[i] = at.get(ts) ?? -1;
        at.set(ts, i);
      }
    }
    for (const list of lists) for (const e of list) {
      let b = 0;
      if (at) {
        const { lat, long } = e.location;
        for (let i = at.get(e.timestamp) ?? -1; i >= 0; i = same![i]) {
          const l = checks!.signals[i].location!;
          if (l.lat === lat && l.long === long) b |= checks!.bits[i];
        }
      }
      e.integrity = integrityOf(flagsOf(b));
    }
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
