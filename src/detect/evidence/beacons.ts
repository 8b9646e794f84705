/**
 * Beacon evidence (contract §9). A registered beacon sits at its venue (or at its registered
 * location), so the strength it is heard at says how far the phone is from it, and whether a wall
 * stands between: the ranking compares the mean rssi heard with what each candidate predicts
 * (log-distance path loss from the phone, spread over the candidate's footprint, to the beacon,
 * less a wall unless the candidate is the beacon's own venue), a Gaussian in dB. Heard strongly,
 * only the beacon's venue predicts it, so the factor is near-decisive; heard faintly, it speaks
 * for the neighbours. A device that ranges beacons (some signal carried a `beacon_scan`) and never
 * heard any of a candidate's registered beacons was probably not there: inside a venue its own
 * beacon is heard on nearly every scan.
 *
 * Only the requesting app's registry is ever consulted (the worker hands detection that app's
 * view alone), and without a `beacon_scan` nothing here runs: every answer stays as it was.
 * Beacons the app did not register are learned from its confident stays (learned-beacons.ts).
 */
import type { Signal } from '../../schemas/detect-request.js';
import { beaconKey, type BeaconsHeard, type BeaconView, type RegisteredBeacon } from '../../schemas/beacon.js';
import type { BeaconParams } from '../params.js';
import { haversineM } from '../../geo/distance.js';
import { gaussLog as gauss } from './gauss.js';
import type { Venue } from '../venue.js';
import { MAX_LEARNED_PER_STAY, type HeardBeacon, type LearnedHeard } from './learned-beacons.js';

export type { BeaconsHeard } from '../../schemas/beacon.js';

/** Distinct beacons a stay keeps: the strongest, when more are heard. */
const MAX_KEPT = 32;
/** tx_power not sent: stored as this, read as the typical calibrated -59 dBm. */
const NO_TX = 99;
const DEFAULT_TX = -59;

/** Adds the signals' beacon scans to `into` (created at the first signal that carries one). */
export function beaconsOf(signals: readonly Signal[], into?: BeaconsHeard): BeaconsHeard | undefined {
  let out = into;
  for (const s of signals) {
    const scan = s.beacon_scan;
    if (!scan) continue;
    out ??= { r: 0, e: [] };
    out.r++;
    for (const b of scan) add(out, beaconKey(b.uuid, b.major, b.minor), b.rssi, b.tx_power ?? NO_TX);
  }
  return out;
}

function add(h: BeaconsHeard, key: string, rssi: number, tx: number): void {
  for (const e of h.e) if (e[0] === key) { e[1] += rssi; e[2]++; if (tx !== NO_TX) e[3] = tx; return; }
  if (h.e.length < MAX_KEPT) { h.e.push([key, rssi, 1, tx]); return; }
  let weakest = 0;
  for (let i = 1; i < h.e.length; i++) if (h.e[i][1] / h.e[i][2] < h.e[weakest][1] / h.e[weakest][2]) weakest = i;
  if (rssi > h.e[weakest][1] / h.e[weakest][2]) h.e[weakest] = [key, rssi, 1, tx];
}

/** What the ranking needs of a stay's beacons: the registered ones heard, and how often the device ranged. */
export interface StayBeacons {
  ranged: number;
  heard: Array<{ reg: RegisteredBeacon; rssi: number; tx: number; n: number }>;
  /** Venues with a registered beacon heard. */
  venues: Set<string>;
  /** The app's registry; absent when it registered none. */
  view: BeaconView | undefined;
  /** The strongest beacons the app did not register, [key, mean rssi − tx], strongest first: what a confident stay teaches. */
  unregistered: Array<[string, number]>;
  /** Those the app has learned (learned-beacons.ts). */
  learned: LearnedHeard[];
}

/** Reads what the app learned of unregistered beacons, in the order asked (users' learnedBeacons for the app). */
export type LearnedLookup = (keys: readonly string[]) => Array<HeardBeacon | undefined>;

/** Undefined when the device never ranged beacons. */
export function resolveBeacons(h: BeaconsHeard | undefined, view: BeaconView | undefined, learned?: LearnedLookup): StayBeacons | undefined {
  if (!h || h.r === 0) return undefined;
  const out: StayBeacons = { ranged: h.r, heard: [], venues: new Set(), view, unregistered: [], learned: [] };
  for (const [key, sum, n, tx] of h.e) {
    const t = tx === NO_TX ? DEFAULT_TX : tx;
    const reg = view?.find(key);
    if (!reg) { out.unregistered.push([key, sum / n - t]); continue; }
    out.heard.push({ reg, rssi: sum / n, tx: t, n });
    if (reg.venueId !== null) out.venues.add(reg.venueId);
  }
  if (out.unregistered.length > 1) out.unregistered.sort((a, b) => b[1] - a[1]);
  if (out.unregistered.length > MAX_LEARNED_PER_STAY) out.unregistered.length = MAX_LEARNED_PER_STAY;
  if (learned && out.unregistered.length) {
    const ls = learned(out.unregistered.map((u) => u[0]));
    for (let i = 0; i < ls.length; i++) { const l = ls[i]; if (l) out.learned.push({ l, x: out.unregistered[i][1] }); }
  }
  return out;
}

/**
 * Log likelihood (≤ 0, relative to the best candidate) of each of the first `n` candidates under
 * the stay's beacons, into `out`, and in `out[n]` that of "none of these". False when there was
 * nothing to say (every entry 0).
 */
export function beaconScores(sb: StayBeacons, cands: ReadonlyArray<{ venue: Venue }>, n: number, bp: BeaconParams, out: Float64Array): boolean {
  out.fill(0, 0, n + 1);
  let said = false;
  const r = sb.ranged;
  for (const h of sb.heard) {
    let plat = h.reg.lat, plon = h.reg.lon;
    const own = h.reg.venueId;
    if (plat !== plat) {
      // Registered by venue only: it is where its venue is, if that venue is a candidate.
      const at = own === null ? -1 : indexOfVenue(cands, n, own);
      if (at < 0) continue;
      plat = cands[at].venue.lat; plon = cands[at].venue.lon;
    }
    const x = h.rssi - h.tx;
    const inside = gauss(x, bp.insideDb, bp.insideSdDb);
    // "None of these": the phone at no venue, at best outside the beacon's, just beyond its wall.
    const none = bp.noneOutside ? nearWall(gauss(x, bp.outsideDb, bp.outsideSdDb), inside, 0, bp) : -Infinity;
    let best = none;
    for (let i = 0; i < n; i++) {
      const v = cands[i].venue;
      const d = own !== null && v.id === own ? 0 : haversineM(v.lat, v.lon, plat, plon);
      const isIn = own !== null ? v.id === own : d <= (v.radius > 0 ? v.radius : 15);
      const ll = isIn ? inside : nearWall(gauss(x, bp.outsideDb - bp.outsideSlopeDb * Math.log10(Math.max(d, bp.outsideNearM) / bp.outsideNearM), bp.outsideSdDb), inside, d, bp);
      scratch[i] = ll;
      if (ll > best) best = ll;
    }
    for (let i = 0; i < n; i++) out[i] += Math.max(bp.floor, scratch[i] - best);
    if (bp.noneOutside) out[n] += Math.max(bp.floor, none - best);
    said = true;
  }
  if (r > 0) {
    const miss = -Math.min(bp.missCap, bp.missPerScan * r);
    for (let i = 0; i < n; i++) {
      const id = cands[i].venue.id;
      if (!sb.venues.has(id) && sb.view && sb.view.atVenue(id) > 0) { out[i] += miss; said = true; }
    }
  }
  return said;
}

/**
 * A phone at a neighbour within wallM of the beacon, by the shared wall, hears it as if inside
 * (wallP of such stays; rarer with the square of the distance beyond): however loud the beacon,
 * that neighbour keeps log(wallP) of the inside likelihood.
 */
function nearWall(outside: number, inside: number, d: number, bp: BeaconParams): number {
  if (!(bp.wallP > 0)) return outside;
  const w = bp.wallP * Math.min(1, (bp.wallM / Math.max(d, 1)) ** 2);
  return orWall(Math.log1p(-w) + outside, Math.log(w) + inside);
}

/** log(e^a + e^b). */
const orWall = (a: number, b: number): number => Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));

const scratch = new Float64Array(64);

function indexOfVenue(cands: ReadonlyArray<{ venue: Venue }>, n: number, id: string): number {
  for (let i = 0; i < n; i++) if (cands[i].venue.id === id) return i;
  return -1;
}
