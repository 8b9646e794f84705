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
import type { WifiPosParams } from '../params.js';
import type { ApPlace } from '../../learned/shapes.js';

export type { ApPlace } from '../../learned/shapes.js';

/** Phone-to-AP distance (m) that a strength suggests: -40 dBm at 1 m, exponent 3. */
export const distanceOf = (dbm: number): number => Math.min(90, Math.max(2, 10 ** ((-40 - dbm) / 30)));

/** Weight a stay's centre gets when it teaches a network heard at `dbm`. */
export function teachWeight(c: Centre, dbm: number): number {
  const d = distanceOf(dbm);
  return 1 / (c.sigma * c.sigma + d * d);
}

/**
 * Where the located networks heard put the phone: their places weighted by how well each is known
 * and how near its strength says it was, with a per-axis variance (m²); null when none is located.
 * `places[i]` belongs to `heard[i]`.
 */
export function wifiPosition(heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>, pos: WifiPosParams): { lat: number; lon: number; variance: number } | null {
  let sw = 0, sLat = 0, sLon = 0, k = 0;
  for (let i = 0; i < heard.length; i++) {
    const p = places[i];
    if (!p || p[3] < pos.minStays || !(p[0] > 0)) continue;
    const d = distanceOf(heard[i].strength);
    const w = 1 / (1 / p[0] + d * d);
    sw += w; sLat += (w * p[1]) / p[0]; sLon += (w * p[2]) / p[0]; k++;
  }
  return k === 0 ? null : { lat: sLat / sw, lon: sLon / sw, variance: pos.inflate / sw };
}

/**
 * The stay's centre fused with the position of the located networks it heard, or the centre
 * itself when none is located. `places[i]` belongs to `heard[i]`.
 */
export function fuse(c: Centre, heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>, pos: WifiPosParams): Centre {
  const w = wifiPosition(heard, places, pos);
  return w ? fuseGated(c, w.lat, w.lon, w.variance, pos.gate) : c;
}

/**
 * A stay without a single fix, placed by its networks alone: nothing to say it moved (inliers
 * all), nothing about the sky (indoor look unknown). Null when no network heard is located.
 */
export function wifiCentre(heard: readonly WifiHeard[], places: ReadonlyArray<ApPlace | undefined>, pos: WifiPosParams): Centre | null {
  const w = wifiPosition(heard, places, pos);
  return w && { lat: w.lat, lon: w.lon, sigma: Math.sqrt(w.variance), used: 0, inlierShare: 1, medianSpeed: NaN, fixSigma: NaN };
}
