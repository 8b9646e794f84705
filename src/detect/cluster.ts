/**
 * A stay in the making: the fixes and networks of one place, kept compact enough to live in
 * the user's LMDB record between requests.
 */
import type { WifiHeard } from './evidence/wifi.js';
import { allocFixes, type Fixes } from './fixes.js';
import { M_PER_DEG, mPerDegLon } from '../geo/distance.js';
import { ACC_PER_SIGMA } from './center.js';

export interface Cluster {
  /** Visit id once reported, else ''. */ id: string;
  /** Offset (minutes) of the device's clock zone. */ o: number;
  /** Time of the last usable fix before this stay, -1 when none. */ pt: number;
  /** First and last fix times, ms. */ f0: number; l: number;
  /** Fixes taken, including those thinned out of the stored columns. */ n: number;
  /** Running weighted sums for the centre used to test membership. */ sw: number; sla: number; slo: number;
  /** Stored fixes (bounded): time, lat, lon, accuracy. */ ft: number[]; fla: number[]; flo: number[]; fa: number[];
  /** Networks heard during the stay (bounded). */ w: WifiHeard[];
}

const MAX_STORED = 48;
const MAX_HEARD = 16;

export function newCluster(t: number, lat: number, lon: number, acc: number, prevT: number, offsetMin: number): Cluster {
  const c: Cluster = { id: '', o: offsetMin, pt: prevT, f0: t, l: t, n: 0, sw: 0, sla: 0, slo: 0, ft: [], fla: [], flo: [], fa: [], w: [] };
  addFix(c, t, lat, lon, acc);
  return c;
}

export const centreLat = (c: Cluster) => c.sla / c.sw;
export const centreLon = (c: Cluster) => c.slo / c.sw;

/** Distance from the cluster's centre, metres. */
export function distanceTo(c: Cluster, lat: number, lon: number): number {
  const clat = centreLat(c);
  const dy = (lat - clat) * M_PER_DEG, dx = (lon - centreLon(c)) * mPerDegLon(clat);
  return Math.sqrt(dx * dx + dy * dy);
}

export function addFix(c: Cluster, t: number, lat: number, lon: number, acc: number): void {
  const s = acc / ACC_PER_SIGMA;
  let w = 1 / (s * s);
  if (c.sw > 0) { const r = distanceTo(c, lat, lon) / s; w /= 1 + (r * r) / 6.25; }
  c.sw += w; c.sla += w * lat; c.slo += w * lon;
  c.n++; c.l = t;
  if (c.ft.length >= MAX_STORED) {
    // Keep every other fix: the stored ones still span the whole stay.
    for (const col of [c.ft, c.fla, c.flo, c.fa]) { let k = 0; for (let i = 0; i < col.length; i += 2) col[k++] = col[i]; col.length = k; }
  }
  c.ft.push(t); c.fla.push(lat); c.flo.push(lon); c.fa.push(acc);
}

export function addHeard(c: Cluster, heard: readonly WifiHeard[]): void {
  for (const h of heard) {
    const had = c.w.find((x) => x.key === h.key);
    if (had) { had.active ||= h.active; had.strength = Math.max(had.strength, h.strength); }
    else if (c.w.length < MAX_HEARD) c.w.push({ ...h });
    else {
      // Full: a stronger network (or a joined one) replaces the weakest merely scanned one.
      let weakest = -1;
      for (let i = 0; i < c.w.length; i++) if (!c.w[i].active && (weakest < 0 || c.w[i].strength < c.w[weakest].strength)) weakest = i;
      if (weakest >= 0 && (h.active || h.strength > c.w[weakest].strength)) c.w[weakest] = { ...h };
    }
  }
}

/** Typical time between this stay's fixes, ms: fixes land anywhere in such an interval. */
export const spacing = (c: Cluster): number => (c.n >= 2 ? (c.l - c.f0) / (c.n - 1) : 120_000);

/** Arrival: before the first fix by half an interval, but not before the previous fix's half-way. */
export function startOf(c: Cluster): number {
  const half = spacing(c) / 2;
  return c.f0 - (c.pt >= 0 ? Math.min((c.f0 - c.pt) / 2, half) : half);
}

/** Departure, given the time of the first fix that showed the person gone. */
export const endOf = (c: Cluster, nextT: number): number => c.l + Math.min((nextT - c.l) / 2, spacing(c) / 2);

const cols = allocFixes(MAX_STORED);
/** The stored fixes as columns for the robust centre. Valid until the next call. */
export function clusterFixes(c: Cluster): Fixes {
  const n = c.ft.length;
  for (let i = 0; i < n; i++) { cols.t[i] = c.ft[i]; cols.lat[i] = c.fla[i]; cols.lon[i] = c.flo[i]; cols.acc[i] = c.fa[i]; cols.speed[i] = 0; cols.src[i] = i; }
  cols.n = n;
  return cols;
}
