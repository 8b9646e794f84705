/**
 * The networks a request's checks heard and looked up (check.ts), kept for the detection that
 * follows in the same task: it hears the same BSSID strings and asks the same learned places,
 * and doing both again cost a lower-cased copy and a cache lookup (the slot's hash, two maps, an
 * atomic read) per network per event. The answers hold for the whole detection: nothing the
 * request teaches is written before its last event is assessed, and the task reads one snapshot.
 */
import type { ApPlace } from '../learned/shapes.js';

export interface Heard {
  /** A BSSID as sent and lower case → its index in `bssids`, -1 past the checks' bound. */
  ids: Map<string, number>;
  /** The distinct networks, lower case, in hearing order. */
  bssids: string[];
  /** Their learned places, as the checks read them. */
  places: ReadonlyArray<ApPlace | undefined>;
}

/** `raw` lower case: the checks' copy when they heard it, else a new one. */
export function lowerOf(heard: Heard | undefined, raw: string): string {
  const j = heard?.ids.get(raw);
  return j !== undefined && j >= 0 ? heard!.bssids[j] : raw.toLowerCase();
}

/**
 * The learned places of `bssids` (lower case, '' for none), in order: the checks' answers where
 * they read them, the rest from `read` (one call for them all).
 */
export function placesOf(heard: Heard | undefined, bssids: readonly string[], read: (bssids: readonly string[]) => ReadonlyArray<ApPlace | undefined>): ReadonlyArray<ApPlace | undefined> {
  if (!heard) return read(bssids);
  const out: Array<ApPlace | undefined> = [];
  let missing: number[] | undefined;
  for (let i = 0; i < bssids.length; i++) {
    const j = bssids[i] ? heard.ids.get(bssids[i]) : undefined;
    if (j !== undefined && j >= 0) out.push(heard.places[j]);
    else { out.push(undefined); if (bssids[i]) (missing ??= []).push(i); }
  }
  if (missing) {
    const got = read(missing.map((i) => bssids[i]));
    for (let k = 0; k < missing.length; k++) out[missing[k]] = got[k];
  }
  return out;
}
