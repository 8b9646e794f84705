/**
 * Seeded synthetic venue positions clustered like cities: n points around 20k Zipf-weighted
 * cities (sigma 2–20 km by size) plus 5% uniform background. Float32 keeps 100M points in
 * 800 MB for the store bench; the detection bench takes Float64.
 */
import { mulberry32 } from './rng.js';

type Coords = Float32ArrayConstructor | Float64ArrayConstructor;

export function syntheticVenues<A extends Coords>(n: number, Arr: A, seed = 42): { lat: InstanceType<A>; lon: InstanceType<A> } {
  const r = mulberry32(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(r() || 1e-12)) * Math.cos(2 * Math.PI * r());
  const C = 20_000;
  const cLat = new Float64Array(C), cLon = new Float64Array(C), sigma = new Float64Array(C), cdf = new Float64Array(C);
  let sum = 0;
  for (let k = 0; k < C; k++) {
    cLat[k] = -45 + r() * 105; cLon[k] = -180 + r() * 360;
    sigma[k] = (2 + 18 / Math.sqrt(k + 1)) / 111.2; // degrees
    cdf[k] = sum += 1 / (k + 1);
  }
  const lat = new Arr(n) as InstanceType<A>, lon = new Arr(n) as InstanceType<A>;
  for (let i = 0; i < n; i++) {
    if (r() < 0.05) { lat[i] = -55 + r() * 125; lon[i] = -180 + r() * 360; continue; }
    const u = r() * sum;
    let lo = 0, hi = C - 1;
    while (lo < hi) { const m = (lo + hi) >> 1; if (cdf[m] < u) lo = m + 1; else hi = m; }
    lat[i] = Math.max(-89, Math.min(89, cLat[lo] + gauss() * sigma[lo]));
    lon[i] = ((cLon[lo] + (gauss() * sigma[lo]) / Math.cos((cLat[lo] * Math.PI) / 180) + 540) % 360) - 180;
  }
  return { lat, lon };
}
