/**
 * The user's own history: people return to the same few places. Each past stay is kept as its
 * own GPS centre, not as the venue it was ranked to, so a wrong ranking is not reinforced by
 * the next visit: a venue gains from every past stay whose centre fits its footprint. Visits to
 * one venue have independent GPS errors, so together they pin it down better than any one.
 */
import { M_PER_DEG, mPerDegLon } from '../../geo/distance.js';

/** How many past stays at a venue double its odds. */
const PRIOR_VISITS = 0.5;
/** Past stays farther than this from the current centre cannot concern its candidates. */
export const HISTORY_REACH_M = 500;

/** The user's past stays near (lat, lon), flat (lat, lon, sigma), into `out`; returns the count. */
export function nearbyStays(v: readonly number[] | undefined, lat: number, lon: number, out: Float64Array, idx?: Int32Array): number {
  if (!v) return 0;
  const kx = mPerDegLon(lat);
  let n = 0;
  for (let i = 0; i + 3 < v.length && n * 3 + 3 <= out.length; i += 4) {
    const dy = (v[i] - lat) * M_PER_DEG, dx = (v[i + 1] - lon) * kx;
    if (dx * dx + dy * dy > HISTORY_REACH_M * HISTORY_REACH_M) continue;
    if (idx) idx[n] = i / 4;
    out[n * 3] = v[i]; out[n * 3 + 1] = v[i + 1]; out[n * 3 + 2] = v[i + 2];
    n++;
  }
  return n;
}

/** log(1 + fitting past stays / PRIOR_VISITS) for a venue at (lat, lon) of footprint radius. */
export function historyLog(stays: Float64Array, n: number, lat: number, lon: number, radius: number): number {
  if (n === 0) return 0;
  const kx = mPerDegLon(lat);
  let fit = 0;
  for (let j = 0; j < n; j++) {
    const s = stays[j * 3 + 2];
    const v = s * s + (radius * radius) / 4;
    const dy = (stays[j * 3] - lat) * M_PER_DEG, dx = (stays[j * 3 + 1] - lon) * kx;
    fit += Math.exp(-(dx * dx + dy * dy) / (2 * v));
  }
  return Math.log1p(fit / PRIOR_VISITS);
}

/**
 * The user's past stays here by the venues they were ranked to (their two best, records.ts `t`):
 * a venue gains log(1 + Σ_j w_j p_j(v) / prior), with w_j = exp(−d_j² / 2(σ_j² + σ² + spread²))
 * the chance that past stay j was at the same place as this one (d_j between the centres) and
 * p_j(v) its probability then. A past stay that an SSID or a joined network settled passes its
 * answer on to later stays at the same place that lack that evidence.
 */
const candIndex = new Map<string, number>();
export function labelScores(
  stays: Float64Array, idx: Int32Array, nStays: number, labels: ReadonlyArray<string | number>,
  lat: number, lon: number, sigma: number, spread: number, prior: number,
  cands: ReadonlyArray<{ venue: { id: string } }>, n: number, out: Float64Array,
): boolean {
  const kx = mPerDegLon(lat);
  let any = false, indexed = false;
  for (let i = 0; i < n; i++) out[i] = 0;
  for (let j = 0; j < nStays; j++) {
    const s = stays[j * 3 + 2];
    const dy = (stays[j * 3] - lat) * M_PER_DEG, dx = (stays[j * 3 + 1] - lon) * kx;
    const w = Math.exp(-(dx * dx + dy * dy) / (2 * (s * s + sigma * sigma + spread * spread)));
    if (w < 0.05) continue;
    const b = idx[j] * 4;
    if (b + 3 >= labels.length) continue;
    if (!indexed) { candIndex.clear(); for (let i = 0; i < n; i++) candIndex.set(cands[i].venue.id, i); indexed = true; }
    for (let k = 0; k < 4; k += 2) {
      const id = labels[b + k] as string, p = labels[b + k + 1] as number;
      if (!id || !p) continue;
      const i = candIndex.get(id);
      if (i !== undefined) { out[i] += w * p; any = true; }
    }
  }
  if (any) for (let i = 0; i < n; i++) out[i] = Math.log1p(out[i] / prior);
  return any;
}
