/**
 * Centroid and footprint radius of a way or relation from its rings, on a local equirectangular
 * plane (exact enough at building and park scale). Closed rings give an area-weighted centroid
 * and the radius of the circle of equal area; open lines give the mean point and the distance
 * to the farthest vertex.
 */
import { M_PER_DEG } from '../../geo/distance.js';

export interface Ring { lat: number[]; lon: number[]; inner: boolean }
export interface Shape { lat: number; lon: number; radius: number }

const MIN_RADIUS = 3;
const MAX_RADIUS = 5000;

export function shapeOf(rings: Ring[]): Shape | undefined {
  const first = rings.find((r) => r.lat.length > 0);
  if (!first) return undefined;
  const lat0 = first.lat[0];
  const lon0 = first.lon[0];
  const kx = Math.cos((lat0 * Math.PI) / 180) * M_PER_DEG;
  let area = 0, cx = 0, cy = 0, sx = 0, sy = 0, n = 0;
  for (const r of rings) {
    const m = r.lat.length;
    for (let i = 0; i < m; i++) { sx += (r.lon[i] - lon0) * kx; sy += (r.lat[i] - lat0) * M_PER_DEG; n++; }
    if (m < 4 || r.lat[0] !== r.lat[m - 1] || r.lon[0] !== r.lon[m - 1]) continue;
    let a = 0, x = 0, y = 0;
    for (let i = 0; i < m - 1; i++) {
      const x0 = (r.lon[i] - lon0) * kx, y0 = (r.lat[i] - lat0) * M_PER_DEG;
      const x1 = (r.lon[i + 1] - lon0) * kx, y1 = (r.lat[i + 1] - lat0) * M_PER_DEG;
      const c = x0 * y1 - x1 * y0;
      a += c; x += (x0 + x1) * c; y += (y0 + y1) * c;
    }
    if (a === 0) continue;
    const w = Math.abs(a / 2) * (r.inner ? -1 : 1);
    area += w; cx += (x / (3 * a)) * w; cy += (y / (3 * a)) * w;
  }
  let px: number, py: number, radius: number;
  if (area > 1) {
    px = cx / area; py = cy / area;
    radius = Math.sqrt(area / Math.PI);
  } else {
    px = sx / n; py = sy / n;
    radius = 0;
    for (const r of rings) {
      for (let i = 0; i < r.lat.length; i++) {
        radius = Math.max(radius, Math.hypot((r.lon[i] - lon0) * kx - px, (r.lat[i] - lat0) * M_PER_DEG - py));
      }
    }
  }
  return {
    lat: round7(lat0 + py / M_PER_DEG), lon: round7(lon0 + px / kx),
    radius: Math.min(MAX_RADIUS, Math.max(MIN_RADIUS, radius)),
  };
}

/** OSM's own precision (1e-7°), so stored coordinates do not carry float noise. */
export const round7 = (x: number): number => Math.round(x * 1e7) / 1e7;
