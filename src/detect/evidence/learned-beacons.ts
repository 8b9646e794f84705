/**
 * Beacons nobody registered (another deployment's, or a shop's own that the app never listed),
 * learned per app as Wi-Fi networks are (wifi.ts, position.ts): a confident stay teaches each such
 * beacon it heard the venues it most likely was at, with the strength it heard it at (rssi less
 * tx_power). A later stay that hears the beacon compares its strength with what each candidate's
 * stays heard, shrunk towards a beacon at some unknown distance (learnedPriorDb, worth
 * learnedPriorW stays): a candidate where it was heard at about that strength gains; one taught
 * once, or never, says little either way (answering "never heard there" with a fixed penalty cost
 * Monaco b1 with nothing registered 1.5 points of top1: most venues have had few confident
 * visits on a ranging device). Weaker than a registered beacon (evidence/beacons.ts): the venues
 * were inferred, not declared, and a beacon heard through a wall from several venues mostly says
 * how far away it is.
 *
 * Only the requesting app's learned values are read (['bl', app, key], learned/tables.ts), and
 * only stays of that app teach them.
 */
import type { HeardBeacon } from '../../learned/shapes.js';
import type { ApObservation } from '../../learned/tables.js';
import type { BeaconParams } from '../params.js';
import { gaussLog as gauss } from './gauss.js';
import type { Venue } from '../venue.js';

export type { HeardBeacon } from '../../learned/shapes.js';

/** A learned beacon heard at this stay: what the app learned of it, and the mean rssi − tx heard now (dB). */
export interface LearnedHeard { l: HeardBeacon; x: number }

/** At most this many unregistered beacons a stay teaches or reads: its strongest. */
export const MAX_LEARNED_PER_STAY = 8;
/** A stay teaches its best venues, at most this many. */
const TEACH_VENUES = 3;

const scratch = new Float64Array(64);

/**
 * Log likelihood (≤ 0, relative to the best candidate) of each of the first `n` candidates under
 * the stay's learned beacons, into `out`. False when none had anything to say.
 */
export function learnedBeaconScores(heard: readonly LearnedHeard[], cands: ReadonlyArray<{ venue: Venue }>, n: number, bp: BeaconParams, out: Float64Array): boolean {
  out.fill(0, 0, n);
  let said = false;
  for (const { l, x } of heard) {
    let total = 0;
    for (const id in l.v) total += l.v[id][0];
    if (total < bp.learnedMinWeight) continue;
    let best = -Infinity, any = false;
    for (let i = 0; i < n; i++) {
      const e = l.v[cands[i].venue.id];
      // What the candidate's stays heard, shrunk towards a beacon at some unknown distance (worth
      // learnedPriorW stays): a venue taught once or never says little either way.
      const w = e ? e[0] : 0, k = bp.learnedPriorW;
      const ll = gauss(x, ((e ? e[1] : 0) + k * bp.learnedPriorDb) / (w + k), Math.sqrt(bp.learnedSdDb ** 2 + (bp.learnedPriorSdDb ** 2 * k) / (w + k)));
      if (e) any = true;
      scratch[i] = ll;
      if (ll > best) best = ll;
    }
    // Heard at none of the candidates: the beacon says nothing of them.
    if (!any) continue;
    for (let i = 0; i < n; i++) out[i] += Math.max(bp.learnedFloor, scratch[i] - best);
    said = true;
  }
  return said;
}

/**
 * What a confident stay teaches its unregistered beacons: the venues it most likely was at,
 * weighted by their probability, and the strength each beacon was heard at. Nothing unless the
 * best venue is at least `learnedTeachP` likely, so that guesses do not teach.
 */
export function beaconsToLearn(unregistered: ReadonlyArray<readonly [string, number]>, ranked: ReadonlyArray<{ venue: Venue; probability: number }>, bp: BeaconParams): ApObservation[] {
  if (!bp.on || !bp.learnedWeight || unregistered.length === 0 || !ranked.length || ranked[0].probability < bp.learnedTeachP) return [];
  const venues: Array<string | number> = [];
  for (let i = 0; i < ranked.length && i < TEACH_VENUES; i++) {
    const p = ranked[i].probability;
    if (p < bp.learnedTeachVenue) break;
    venues.push(ranked[i].venue.id, Math.round(p * 1000) / 1000, 0);
  }
  const out: ApObservation[] = [];
  for (const [key, x] of unregistered) {
    const b = venues.slice();
    for (let i = 2; i < b.length; i += 3) b[i] = Math.round(x * 10) / 10;
    out.push({ bssid: key, beacon: b });
  }
  return out;
}
