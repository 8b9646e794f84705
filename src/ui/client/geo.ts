/** GeoJSON of Dwell's own things: a request's fixes and their accuracy, stays, candidates, geofences. */
type Feature = { type: 'Feature'; geometry: any; properties: Record<string, unknown> };
export type Collection = { type: 'FeatureCollection'; features: Feature[] };

export const collection = (features: Feature[] = []): Collection => ({ type: 'FeatureCollection', features });
const point = (lon: number, lat: number, properties: Record<string, unknown> = {}): Feature => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties });

/** A circle of `radius` metres as a 48-gon (a flat-earth approximation: fine below a few km). */
export function circle(lon: number, lat: number, radius: number, properties: Record<string, unknown> = {}): Feature {
  const ring: number[][] = [];
  const dLat = radius / 111_320, dLon = radius / (111_320 * Math.cos((lat * Math.PI) / 180));
  for (let i = 0; i <= 48; i++) { const a = (i / 48) * 2 * Math.PI; ring.push([lon + dLon * Math.cos(a), lat + dLat * Math.sin(a)]); }
  return { type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties };
}

export interface Fix { lat: number; long: number; accuracy: number; at: string }

/** The location fixes of a detect body, structured (events[].data) or not (data). */
export function fixesOf(request: any): Fix[] {
  const signals: any[] = Array.isArray(request?.events) ? request.events.flatMap((e: any) => (Array.isArray(e?.data) ? e.data : [])) : Array.isArray(request?.data) ? request.data : [];
  return signals.filter((s) => s?.location && Number.isFinite(s.location.lat) && Number.isFinite(s.location.long))
    .map((s) => ({ lat: s.location.lat, long: s.location.long, accuracy: Number(s.location.accuracy) || 0, at: String(s.timestamp ?? '') }));
}

export const fixesLayer = (fixes: Fix[]): Collection => collection(fixes.map((f) => point(f.long, f.lat, { at: f.at })));
export const accuracyLayer = (fixes: Fix[]): Collection => collection(fixes.filter((f) => f.accuracy > 0).map((f) => circle(f.long, f.lat, f.accuracy)));

export const pointsLayer = (items: Array<{ lat: number; long: number; [k: string]: unknown }>): Collection =>
  collection(items.map(({ lat, long, ...rest }) => point(long, lat, rest)));

/** A geofence record (contract §4) as a polygon. */
export function fenceFeature(g: any): Feature | null {
  const loc = g?.location;
  if (loc?.polygon) {
    const ring = loc.polygon.map((p: any) => [p.long, p.lat]);
    ring.push(ring[0]);
    return { type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties: { id: g.id, tag: g.tag ?? '' } };
  }
  if (loc && Number.isFinite(loc.radius)) return circle(loc.long, loc.lat, loc.radius, { id: g.id, tag: g.tag ?? '' });
  return null;
}

/** [[west, south], [east, north]] around every point given, or null. */
export function bounds(points: Array<[number, number]>): [[number, number], [number, number]] | null {
  if (!points.length) return null;
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [lon, lat] of points) { w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat); }
  return [[w, s], [e, n]];
}
