/**
 * Where a person stayed, from noisy fixes: a robust weighted centre and an honest uncertainty.
 * GPS errors are correlated over minutes (the same multipath persists), so averaging n fixes does
 * not shrink the error by sqrt(n); the effective count grows with the time span instead.
 */
import type { Fixes } from './fixes.js';
import { M_PER_DEG, mPerDegLon } from '../geo/distance.js';

/** Reported accuracy is roughly a 1.5-sigma radius. */
export const ACC_PER_SIGMA = 1.5;
/** Correlation time of GPS error, seconds. */
export const ERROR_CORRELATION_S = 300;

export interface Centre {
  lat: number; lon: number;
  /** Per-axis standard error of the centre, metres. */
  sigma: number;
  /** Fixes that carried weight (not rejected as outliers). */
  used: number;
  /** Share of fixes within 3 sigma of the centre: low means moving, not staying. */
  inlierShare: number;
  /** Median of known speeds, m/s; NaN when none known. */
  medianSpeed: number;
  /** Typical per-fix sigma of the fixes that carried weight, metres (how good the sky view was). */
  fixSigma: number;
}

/**
 * The centre and a second position of the same stay (lat, lon, per-axis variance m²) combined by
 * inverse variance, or the centre unchanged when they lie more than `gate` sigmas apart: then one
 * of them is wrong, and the stay's own fixes are trusted.
 */
export function fuseGated(c: Centre, lat: number, lon: number, variance: number, gate: number): Centre {
  const cVar = c.sigma * c.sigma;
  const dy = (lat - c.lat) * M_PER_DEG, dx = (lon - c.lon) * mPerDegLon(c.lat);
  if (dx * dx + dy * dy > gate * gate * (variance + cVar)) return c;
  const a = (1 / cVar) / (1 / cVar + 1 / variance);
  return { ...c, lat: a * c.lat + (1 - a) * lat, lon: a * c.lon + (1 - a) * lon, sigma: Math.sqrt(1 / (1 / cVar + 1 / variance)) };
}

const w = new Float64Array(5000);

/** Robust centre of fixes [from, to) by iteratively reweighted least squares with a Cauchy loss. */
export function robustCentre(f: Fixes, from = 0, to = f.n): Centre | null {
  const n = to - from;
  if (n <= 0) return null;
  // Start from the most accurate fix's neighbourhood: the weighted mean is dragged by jumps.
  let lat = 0, lon = 0, best = Infinity;
  for (let i = from; i < to; i++) if (f.acc[i] < best) { best = f.acc[i]; lat = f.lat[i]; lon = f.lon[i]; }
  lat = medianAround(f, from, to, lat, lon, true);
  lon = medianAround(f, from, to, lat, lon, false);
  const ky = M_PER_DEG, kx = mPerDegLon(lat);
  let sw = 0;
  for (let iter = 0; iter < 4; iter++) {
    let sLat = 0, sLon = 0;
    sw = 0;
    for (let i = from; i < to; i++) {
      const s = f.acc[i] / ACC_PER_SIGMA;
      const dy = (f.lat[i] - lat) * ky, dx = (f.lon[i] - lon) * kx;
      const r2 = (dx * dx + dy * dy) / (s * s);
      const wi = 1 / (s * s) / (1 + r2 / 6.25); // Cauchy weight, scale 2.5 sigma
      w[i - from] = wi;
      sw += wi; sLat += wi * f.lat[i]; sLon += wi * f.lon[i];
    }
    lat = sLat / sw; lon = sLon / sw;
  }
  let inliers = 0, used = 0, sumInvVar = 0;
  for (let i = from; i < to; i++) {
    const s = f.acc[i] / ACC_PER_SIGMA;
    const dy = (f.lat[i] - lat) * ky, dx = (f.lon[i] - lon) * kx;
    const r = Math.sqrt(dx * dx + dy * dy) / s;
    if (r <= 3) { inliers++; used++; sumInvVar += 1 / (s * s); }
  }
  if (used === 0) { used = n; sumInvVar = sw; }
  const span = (f.t[to - 1] - f.t[from]) / 1000;
  const nEff = Math.min(used, 1 + span / (2 * ERROR_CORRELATION_S));
  const meanVar = used / sumInvVar;
  return { lat, lon, sigma: Math.sqrt(meanVar / nEff), used, inlierShare: inliers / n, medianSpeed: medianSpeed(f, from, to), fixSigma: Math.sqrt(meanVar) };
}

const tmp = new Float64Array(5000);
function medianAround(f: Fixes, from: number, to: number, lat: number, lon: number, ofLat: boolean): number {
  let m = 0;
  for (let i = from; i < to && m < tmp.length; i++) if (f.acc[i] < 150) tmp[m++] = ofLat ? f.lat[i] : f.lon[i];
  if (m === 0) return ofLat ? lat : lon;
  const a = tmp.subarray(0, m).sort();
  return a[m >> 1];
}

function medianSpeed(f: Fixes, from: number, to: number): number {
  let m = 0;
  for (let i = from; i < to && m < tmp.length; i++) if (!Number.isNaN(f.speed[i])) tmp[m++] = f.speed[i];
  if (m === 0) return NaN;
  return tmp.subarray(0, m).sort()[m >> 1];
}
