/**
 * Wi-Fi positioning with access points located online. Every confirmed stay teaches each network
 * it heard where it was: the stay's GPS centre, weighted by how sure that centre is and by how
 * near the signal strength says the phone stood (log-distance path loss). Summed over many stays
 * of the app's users, independent GPS errors average out and an access point's place becomes
 * known to a few metres. A later stay that hears located networks then gets a position from
 * them, fused with its GPS centre: indoors, where GPS is worst, Wi-Fi is at its best.
 * Learning uses the GPS centre only, never the fused one, so the map does not feed on itself.
 */
import { fuseGated, type Centre } from '../center.js';
import type { WifiHeard } from './wifi.js';
import type { ApPlace } from '../../learned/shapes.js';

export type { ApPlace } from '../../learned/shapes.js';

/** Phone-to-AP distance (m) that a strength suggests: -40 dBm at 1 m, exponent 3. */
export const distanceOf = (dbm: number): number => Math.min(90, Math.max(2, 10 ** ((-40 - dbm) / 30)));

/** Weight a stay's centre gets when it teaches a network heard at `dbm`. */
export function teachWeight(c: Centre, dbm: number): number {
  const d = distanceOf(dbm);
  return 1 / (c.sigma * c.sigma + d * d);
}

export const WIFI_POS = {
  /**
   * Stays an access point needs before it locates anyone. One is enough: the place's variance
   * (1 / Σw) already says how little one teacher knows, and the gate catches a bad one. 3 → 1,
   * offline top1: NYC s1 +0.5, s2 +0.4 (a sparse city: most networks are heard by few stays),
   * Monaco m1 −0.05.
   */
  minStays: 1,
  /** Inflation of the Wi-Fi position's variance: networks heard together were taught by the same stays. */
  inflate: 2,
  /**
   * Gate: beyond this many sigmas apart, GPS and Wi-Fi disagree and GPS is kept alone (a router
   * that moved, a hotspot in a pocket). 3 → 5, offline top1 on every set tried: NYC s1–s5 +0.11 to
   * +0.24, urban-harsh h2 +0.31, Monaco m1 +0.47; held out m2 +0.44, m3 +0.38, stream u2 +0.15,
   * u3 0.0. At 3 it threw away Wi-Fi positions that were right; 4, 8 or no gate at all score
   * within ±0.05 of 5, which keeps a guard against the real-world cases.
   */
  gate: 5,
};

/**
 * Where the located networks heard put the phone: their places weighted by how well each is known
 * and how near its strength says it was, with a per-axis variance (m²); null when none is located.
 * `places[i]` belongs to `heard[i]`.
 */
export function wifiPosition(heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>): { lat: number; lon: number; variance: number } | null {
  let sw = 0, sLat = 0, sLon = 0, k = 0;
  for (let i = 0; i < heard.length; i++) {
    const p = places[i];
    if (!p || p[3] < WIFI_POS.minStays || !(p[0] > 0)) continue;
    const d = distanceOf(heard[i].strength);
    const w = 1 / (1 / p[0] + d * d);
    sw += w; sLat += (w * p[1]) / p[0]; sLon += (w * p[2]) / p[0]; k++;
  }
  return k === 0 ? null : { lat: sLat / sw, lon: sLon / sw, variance: WIFI_POS.inflate / sw };
}

/**
 * The stay's centre fused with the position of the located networks it heard, or the centre
 * itself when none is located. `places[i]` belongs to `heard[i]`.
 */
export function fuse(c: Centre, heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>): Centre {
  const w = wifiPosition(heard, places);
  return w ? fuseGated(c, w.lat, w.lon, w.variance, WIFI_POS.gate) : c;
}

/**
 * A stay without a single fix, placed by its networks alone: nothing to say it moved (inliers
 * all), nothing about the sky (indoor look unknown). Null when no network heard is located.
 */
export function wifiCentre(heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>): Centre | null {
  const w = wifiPosition(heard, places);
  return w && { lat: w.lat, lon: w.lon, sigma: Math.sqrt(w.variance), used: 0, inlierShare: 1, medianSpeed: NaN, fixSigma: NaN };
}
