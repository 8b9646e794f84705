/**
 * The networks a request's checks heard and looked up (check.ts), kept for the detection that
 * follows in the same task: it hears the same BSSID strings and asks the same learned places,
 * and doing both again cost a lower-cased copy and a cache lookup (the slot's hash, two maps, an
 * atomic read) per network per event. The answers hold for the whole detection: nothing the
 * request teaches is written before its last event is assessed, and the task reads one snapshot.
 */
import type { ApPlace } from '../learned/shapes.js';
import { currentGeneration, indexOf } from './network-table.js';

export interface Heard {
  /** The network table's generation holding these networks (network-table.ts: a BSSID as sent or lower case → its index in `bssids`). */
  generation: number;
  /** The distinct networks, lower case, in hearing order. */
  bssids: string[];
  /** Their learned places, as the checks read them. */
  places: ReadonlyArray<ApPlace | undefined>;
  /** Per signal, the index in `bssids` of its joined network (-1: none, or past the checks' bound). */
  joined: Int32Array;
  /** Per signal, SCAN_STRONGEST entries beside Checks.picks: the index in `bssids` of each pick's network (-1 likewise). */
  picked: Int32Array;
}

/** The lower case of a network the checks heard at index `j` in `bssids` (-1: they did not keep it), else of `raw`. */
export function lowerAt(heard: Heard | undefined, j: number, raw: string): string {
  return j >= 0 ? heard!.bssids[j] : lowerOf(heard, raw);
}

/** The index in `heard.bssids` of `bssid` (as sent or lower case), -1 when the checks did not keep it or the table has moved on to another request. */
function indexIn(heard: Heard, bssid: string): number {
  return heard.generation === currentGeneration() ? indexOf(bssid) : -1;
}

/** `raw` lower case: the checks' copy when they heard it, else a new one. */
export function lowerOf(heard: Heard | undefined, raw: string): string {
  const j = heard ? indexIn(heard, raw) : -1;
  return j >= 0 ? heard!.bssids[j] : raw.toLowerCase();
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
    const j = bssids[i] ? indexIn(heard, bssids[i]) : -1;
    if (j >= 0) out.push(heard.places[j]);
    else { out.push(undefined); if (bssids[i]) (missing ??= []).push(i); }
  }
  if (missing) {
    const got = read(missing.map((i) => bssids[i]));
    for (let k = 0; k < missing.length; k++) out[missing[k]] = got[k];
  }
  return out;
}
