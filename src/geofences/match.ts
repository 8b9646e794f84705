/**
 * Exact point tests, pure. A fix is a point with an accuracy circle; against a fence it is
 * clearly inside (the whole circle inside), clearly outside (the whole circle outside) or
 * straddling the edge. Distances are equirectangular at the mean latitude: within 0.1 % of the
 * sphere at fence scales (≤ 100 km), and no trigonometry beyond one cosine per test.
 */
import { wrapDelta } from './geometry.js';
import { M_PER_DEG } from '../geo/distance.js';

export const INSIDE = 1;
export const STRADDLE = 0;
export const OUTSIDE = -1;
export type Class = typeof INSIDE | typeof STRADDLE | typeof OUTSIDE;

/** Closer to the edge than this counts as on it: below GPS resolution by orders of magnitude. */
export const EDGE_EPSILON_M = 1e-3;
const RAD = Math.PI / 180;

/**
 * From a signed distance to the edge (negative inside, metres). The edge belongs to the fence, so
 * a point on it with no accuracy given is inside.
 */
export function classify(signedDistance: number, accuracy: number): Class {
  const d = Math.abs(signedDistance) <= EDGE_EPSILON_M ? 0 : signedDistance;
  if (d <= -accuracy) return INSIDE;
  if (d > accuracy) return OUTSIDE;
  return STRADDLE;
}

/** Metres between two points, the short way round in longitude. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = wrapDelta(lon2 - lon1) * Math.cos((lat1 + lat2) * 0.5 * RAD);
  const y = lat2 - lat1;
  return Math.sqrt(x * x + y * y) * M_PER_DEG;
}

export function circleSignedDistance(lat: number, lon: number, cLat: number, cLon: number, radius: number): number {
  return distanceM(lat, lon, cLat, cLon) - radius;
}

/**
 * Signed distance from a point to a ring of unwrapped [lon, lat] pairs in `coords` from vertex
 * `start`, `count` vertices. The ring is projected around the point (x east, y north, metres), so
 * inside-ness is a ray cast from the origin along +x and the distance is to the nearest edge.
 * `lon` must already be moved by 360° next to the ring (`lonNear`) when the ring wraps. `kx`, metres
 * per degree of longitude at `lat`, may be passed by a caller testing many rings from one point.
 * With `near`, a caller that only compares the distance with thresholds up to `near` skips the
 * edges whose box lies farther than that (most of them): the answer is exact when it is within
 * `near` of zero, and otherwise ±Infinity, with the right sign, which classifies the same.
 */
export function polygonSignedDistance(lat: number, lon: number, coords: Float64Array, start: number, count: number,
  kx = Math.cos(lat * RAD) * M_PER_DEG, near = Infinity): number {
  const base = 2 * start;
  let inside = false;
  let best = Infinity;
  let jx = (coords[base + 2 * (count - 1)] - lon) * kx;
  let jy = (coords[base + 2 * (count - 1) + 1] - lat) * M_PER_DEG;
  for (let i = 0; i < count; i++) {
    const ix = (coords[base + 2 * i] - lon) * kx;
    const iy = (coords[base + 2 * i + 1] - lat) * M_PER_DEG;
    if ((iy > 0) !== (jy > 0) && ix + ((0 - iy) * (jx - ix)) / (jy - iy) > 0) inside = !inside;
    if ((ix > near && jx > near) || (ix < -near && jx < -near) || (iy > near && jy > near) || (iy < -near && jy < -near)) {
      jx = ix;
      jy = iy;
      continue;
    }
    // Squared distance from the origin to segment i–j.
    const ex = jx - ix, ey = jy - iy;
    const len2 = ex * ex + ey * ey;
    let t = len2 > 0 ? -(ix * ex + iy * ey) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const px = ix + t * ex, py = iy + t * ey;
    const d2 = px * px + py * py;
    if (d2 < best) best = d2;
    jx = ix;
    jy = iy;
  }
  const d = Math.sqrt(best);
  return inside ? -d : d;
}

/**
 * The point's longitude, give or take 360°, nearest to `mid` (the middle of a ring's unwrapped
 * longitudes): a ring spans less than 360°, so that is the one copy that can lie inside it.
 * `lon` itself, or lon ∓ 360, never rounded through `mid`: so any `mid` that picks the same turn
 * gives the same number (the index picks it from a cell's corner, without reading the ring).
 */
export function lonNear(lon: number, mid: number): number {
  const d = lon - mid;
  return d > 180 ? lon - 360 : d < -180 ? lon + 360 : lon;
}

const HALF_RAD = Math.PI / 360;
const INV6 = 1 / 6, INV12 = 1 / 12, INV20 = 1 / 20, INV30 = 1 / 30, INV42 = 1 / 42;

/**
 * cos((lat + lat2) / 2), as distanceM takes it, from cos and sin of lat and dLat = lat2 − lat:
 * cos(lat + δ) with δ = dLat/2 by the angle sum and Taylor series of δ, exact to rounding while
 * |δ| < 0.01 rad (the next term is below 1e-20), so one cosine per query instead of per fence.
 */
export function cosMean(cos: number, sin: number, lat: number, dLat: number): number {
  const d = dLat * HALF_RAD;
  if (d > 0.01 || d < -0.01) return Math.cos((lat + lat + dLat) * HALF_RAD);
  // Reciprocals, not divisions: six divisions in a row cost more than the rest of the test.
  const d2 = d * d;
  return cos * (1 - d2 * 0.5 * (1 - d2 * INV12 * (1 - d2 * INV30))) - sin * d * (1 - d2 * INV6 * (1 - d2 * INV20 * (1 - d2 * INV42)));
}
