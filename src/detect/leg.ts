/**
 * Where a leg of travel began or ended. A person leaves a place on foot or on wheels, under the
 * open sky, where GPS errs by a few metres instead of the tens it errs by under the stay's roof,
 * and each fix on the move errs on its own (the error of a phone standing still persists for
 * minutes). A straight track fitted to the first minutes of the leg and run back to the moment it
 * began points at the door of the place left; the last minutes of a leg, run forward to its end,
 * at the door of the place reached. A structured request that carries a transit next to a visit
 * gives its visit that second, independent position (assess.ts fuses it with the stay's own).
 */
import { M_PER_DEG, mPerDegLon } from '../geo/distance.js';
import type { Fixes } from './fixes.js';
import { ACC_PER_SIGMA, fuseGated, type Centre } from './center.js';
import type { LegParams } from './params.js';

export interface LegEnd { lat: number; lon: number; sigma: number }

/** Fixes fitted at most: those nearest the leg's end. A phone reporting every second would give hundreds. */
const MAX = 32;
const xs = new Float64Array(MAX), ys = new Float64Array(MAX), ts = new Float64Array(MAX), ws = new Float64Array(MAX), ss = new Float64Array(MAX);

/**
 * Where the fixes' track stood at `atMs`, fitted to the fixes within leg.windowS of it on the side
 * `side` says ('after': the leg begins at `atMs`; 'before': it ends there). Null when too few
 * usable fixes lie there.
 */
export function legEnd(f: Fixes, atMs: number, side: 'after' | 'before', leg: LegParams): LegEnd | null {
  if (!leg.on || f.n === 0) return null;
  const lat0 = f.lat[0], kx = mPerDegLon(lat0), ky = M_PER_DEG, lon0 = f.lon[0];
  let n = 0, tMin = Infinity, tMax = -Infinity;
  for (let k = 0; k < f.n && n < MAX; k++) {
    const i = side === 'after' ? k : f.n - 1 - k;
    const dt = (f.t[i] - atMs) / 1000;
    if (side === 'after' ? dt < -1 || dt > leg.windowS : dt > 1 || dt < -leg.windowS) continue;
    if (!(f.acc[i] < leg.maxAccuracy)) continue;
    xs[n] = (f.lon[i] - lon0) * kx; ys[n] = (f.lat[i] - lat0) * ky; ts[n] = dt; ss[n] = f.acc[i] / ACC_PER_SIGMA;
    if (dt < tMin) tMin = dt;
    if (dt > tMax) tMax = dt;
    n++;
  }
  if (n < leg.minFixes || tMax - tMin < leg.minSpanS) return null;
  // Start from the pair of fixes whose line leaves the smallest median miss (a multipath jump of
  // hundreds of metres must not tilt the track), then reweight with a Cauchy loss.
  let fit = bestPair(n);
  for (let iter = 0; iter < 4; iter++) {
    for (let i = 0; i < n; i++) ws[i] = 1 / sq(ss[i]) / (1 + miss2(fit, i) / sq(ss[i]) / 6.25);
    const next = weightedLine(n);
    if (!next) return null;
    fit = next;
  }
  // The intercept's variance, from the fixes that carried weight as inliers.
  let sw = 0, swt = 0, swtt = 0, used = 0;
  for (let i = 0; i < n; i++) {
    if (miss2(fit, i) / sq(ss[i]) > 9) continue;
    const w = 1 / sq(ss[i]);
    sw += w; swt += w * ts[i]; swtt += w * ts[i] * ts[i]; used++;
  }
  const det = sw * swtt - swt * swt;
  if (used < leg.minFixes || !(det > 0)) return null;
  const sigma = Math.max(leg.minSigma, Math.sqrt(swtt / det));
  return { lat: lat0 + fit[2] / ky, lon: lon0 + fit[0] / kx, sigma };
}

const sq = (x: number) => x * x;
type Line = [number, number, number, number];
/** Squared distance (m²) of fix i from the track `fit` ([x0, vx, y0, vy]) at its time. */
const miss2 = (fit: Line, i: number): number => sq(xs[i] - fit[0] - fit[1] * ts[i]) + sq(ys[i] - fit[2] - fit[3] * ts[i]);

/** Weighted least-squares line per axis: [x0, vx, y0, vy] at τ = 0. */
function weightedLine(n: number): Line | null {
  let sw = 0, st = 0, stt = 0, sx = 0, sxt = 0, sy = 0, syt = 0;
  for (let i = 0; i < n; i++) {
    const w = ws[i], t = ts[i];
    sw += w; st += w * t; stt += w * t * t; sx += w * xs[i]; sxt += w * xs[i] * t; sy += w * ys[i]; syt += w * ys[i] * t;
  }
  const det = sw * stt - st * st;
  if (!(det > 0)) return null;
  const vx = (sw * sxt - st * sx) / det, vy = (sw * syt - st * sy) / det;
  return [(sx - vx * st) / sw, vx, (sy - vy * st) / sw, vy];
}

const miss = new Float64Array(MAX);
/** Fixes tried as ends of the starting line: every one of 32 made a leg cost 0.34 ms, 10 cost 0.025 ms. */
const PAIR_FIXES = 10;
function bestPair(n: number): Line {
  let best: Line = [xs[0], 0, ys[0], 0], bestMed = Infinity;
  const step = Math.max(1, (n - 1) / (PAIR_FIXES - 1));
  for (let pa = 0; pa < PAIR_FIXES; pa++) for (let pb = pa + 1; pb < PAIR_FIXES; pb++) {
    const a = Math.round(pa * step), b = Math.round(pb * step);
    if (b >= n || a === b) continue;
    const dt = ts[b] - ts[a];
    if (Math.abs(dt) < 1) continue;
    const vx = (xs[b] - xs[a]) / dt, vy = (ys[b] - ys[a]) / dt;
    const line: Line = [xs[a] - vx * ts[a], vx, ys[a] - vy * ts[a], vy];
    for (let i = 0; i < n; i++) miss[i] = miss2(line, i);
    const med = miss.subarray(0, n).sort()[n >> 1];
    if (med < bestMed) { bestMed = med; best = line; }
  }
  return best;
}

/** The stay's centre and a leg's end, by inverse variance, unless they disagree beyond leg.gate. */
export const withLeg = (c: Centre, l: LegEnd, leg: LegParams): Centre => fuseGated(c, l.lat, l.lon, l.sigma * l.sigma, leg.gate);
