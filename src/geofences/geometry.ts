/**
 * Geofence shapes as the index and the matcher want them: circles as centre and radius, polygons
 * as one ring of unwrapped longitudes (so a fence across the antimeridian is one continuous ring
 * whose longitudes may exceed 180), each with its bounding box in degrees.
 *
 * Polygon edges are straight lines in longitude/latitude, as in GeoJSON and tile38: a customer
 * drawing a fence on a web map gets the fence they drew.
 */
import { invalid } from '../errors.js';
import { EARTH_RADIUS_M, M_PER_DEG } from '../geo/distance.js';

const RAD = Math.PI / 180;

export interface Vertex { lat: number; long: number }
export type Location = { lat: number; long: number; radius: number } | { polygon: Vertex[] };

/** [minLon, minLat, maxLon, maxLat]; minLon in [-180, 180], maxLon may exceed 180 when the box wraps. */
export type BBox = [number, number, number, number];

export interface Circle { kind: 'circle'; lat: number; lon: number; radius: number; bbox: BBox }
/** coords: [lon0, lat0, lon1, lat1, …], closing vertex not repeated. */
export interface Polygon { kind: 'polygon'; coords: Float64Array; bbox: BBox }
export type Shape = Circle | Polygon;

export function isPolygon(loc: Location): loc is { polygon: Vertex[] } {
  return 'polygon' in loc;
}

/** The shape of a stored location; validation has already happened at the API. */
export function shapeOf(loc: Location): Shape {
  return isPolygon(loc) ? preparePolygon(loc.polygon, '/location/polygon', false) : circle(loc.lat, loc.long, loc.radius);
}

export function circle(lat: number, lon: number, radius: number): Circle {
  return { kind: 'circle', lat, lon, radius, bbox: circleBBox(lat, lon, radius) };
}

/**
 * The box around a cap of `radius` metres. Padded by 0.5 % + 1 m because the matcher measures with
 * the equirectangular approximation, which may read a little longer or shorter than the sphere.
 */
export function circleBBox(lat: number, lon: number, radius: number): BBox {
  const r = radius * 1.005 + 1;
  const dLat = r / M_PER_DEG;
  if (Math.abs(lat) + dLat >= 89.9) return [-180, Math.max(-90, lat - dLat), 180, Math.min(90, lat + dLat)];
  const s = Math.sin(r / EARTH_RADIUS_M) / Math.cos(lat * RAD);
  const dLon = s >= 1 ? 180 : Math.asin(s) / RAD;
  if (dLon >= 180) return [-180, lat - dLat, 180, lat + dLat];
  let minLon = lon - dLon, maxLon = lon + dLon;
  if (minLon < -180) { minLon += 360; maxLon += 360; }
  return [minLon, lat - dLat, maxLon, lat + dLat];
}

/**
 * Unwraps, and with `validate` refuses what would make the fence ambiguous: zero-length edges,
 * an edge of exactly 180° of longitude, a ring around a pole, no area, or edges that cross.
 * A closing vertex equal to the first (GeoJSON habit) is accepted and ignored.
 */
export function preparePolygon(vertices: Vertex[], path: string, validate = true): Polygon {
  let n = vertices.length;
  if (n > 3 && same(vertices[0], vertices[n - 1])) n--;
  if (validate && n < 3) throw invalid(path, `a polygon needs at least 3 distinct vertices, got ${n}`);
  const coords = new Float64Array(n * 2);
  let lon = vertices[0].long;
  let minLon = lon, maxLon = lon, minLat = vertices[0].lat, maxLat = minLat;
  coords[0] = lon;
  coords[1] = minLat;
  for (let i = 1; i < n; i++) {
    const v = vertices[i];
    const step = wrapDelta(v.long - vertices[i - 1].long);
    if (validate) {
      if (Math.abs(step) === 180) throw invalid(`${path}/${i}`, `the edge from vertex ${i - 1} to ${i} spans exactly 180° of longitude, so its direction is ambiguous`);
      if (same(v, vertices[i - 1])) throw invalid(`${path}/${i}`, `vertex ${i} repeats vertex ${i - 1}: edges need a length`);
    }
    lon += step;
    coords[2 * i] = lon;
    coords[2 * i + 1] = v.lat;
    if (lon < minLon) minLon = lon;
    if (lon > maxLon) maxLon = lon;
    if (v.lat < minLat) minLat = v.lat;
    if (v.lat > maxLat) maxLat = v.lat;
  }
  if (validate && Math.abs(lon + wrapDelta(vertices[0].long - vertices[n - 1].long) - coords[0]) > 1e-9) {
    throw invalid(path, 'the polygon winds around a pole; split it into polygons that do not');
  }
  // Keep minLon in [-180, 180] so that only boxes that really wrap reach past 180.
  if (minLon < -180) {
    for (let i = 0; i < n; i++) coords[2 * i] += 360;
    minLon += 360;
    maxLon += 360;
  }
  if (validate) {
    if (collinear(coords)) throw invalid(path, 'the polygon has no area: its vertices lie on one line');
    const cross = firstCrossing(coords);
    if (cross) throw invalid(`${path}/${cross[1]}`, `edges ${cross[0]}–${(cross[0] + 1) % n} and ${cross[1]}–${(cross[1] + 1) % n} touch or cross: a polygon may not intersect itself`);
  }
  return { kind: 'polygon', coords, bbox: [minLon, minLat, maxLon, maxLat] };
}

const same = (a: Vertex, b: Vertex) => a.lat === b.lat && wrapDelta(a.long - b.long) === 0;

/** A longitude difference brought into [-180, 180]. */
export function wrapDelta(d: number): number {
  if (d > 180) return d - 360;
  if (d < -180) return d + 360;
  return d;
}

/** Every vertex on the line through the first two (which differ: zero-length edges are refused first). */
function collinear(c: Float64Array): boolean {
  for (let i = 2; i < c.length / 2; i++) if (orient(c[0], c[1], c[2], c[3], c[2 * i], c[2 * i + 1]) !== 0) return false;
  return true;
}

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) =>
  Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));

const within = (a: number, b: number, v: number) => v >= Math.min(a, b) && v <= Math.max(a, b);

/** Whether c lies on segment ab, knowing the three are collinear. */
const onSegment = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) =>
  within(ax, bx, cx) && within(ay, by, cy);

/**
 * The first pair of edges [i, j] (i < j) that touch or cross, or null. Edges are swept in order of
 * their western end so each is compared only with edges whose longitude ranges overlap: near
 * O(n log n) for ordinary rings instead of the n² / 2 pairs of a 1,000-vertex polygon.
 */
export function firstCrossing(c: Float64Array): [number, number] | null {
  const n = c.length / 2;
  const order = Array.from({ length: n }, (_, i) => i);
  const west = (e: number) => Math.min(c[2 * e], c[2 * ((e + 1) % n)]);
  const east = (e: number) => Math.max(c[2 * e], c[2 * ((e + 1) % n)]);
  order.sort((a, b) => west(a) - west(b));
  for (let oi = 0; oi < n; oi++) {
    const e = order[oi];
    const eEast = east(e);
    for (let oj = oi + 1; oj < n && west(order[oj]) <= eEast; oj++) {
      const f = order[oj];
      if (edgesMeet(c, n, Math.min(e, f), Math.max(e, f))) return [Math.min(e, f), Math.max(e, f)];
    }
  }
  return null;
}

function edgesMeet(c: Float64Array, n: number, i: number, j: number): boolean {
  const ax = c[2 * i], ay = c[2 * i + 1], bx = c[2 * ((i + 1) % n)], by = c[2 * ((i + 1) % n) + 1];
  const cx = c[2 * j], cy = c[2 * j + 1], dx = c[2 * ((j + 1) % n)], dy = c[2 * ((j + 1) % n) + 1];
  if (j === i + 1) {
    // Neighbours share b = c: they meet elsewhere only by folding back along the same line.
    return orient(ax, ay, bx, by, dx, dy) === 0 && (onSegment(ax, ay, bx, by, dx, dy) || onSegment(cx, cy, dx, dy, ax, ay));
  }
  if (i === 0 && j === n - 1) {
    // Neighbours share a = d.
    return orient(cx, cy, dx, dy, bx, by) === 0 && (onSegment(cx, cy, dx, dy, bx, by) || onSegment(ax, ay, bx, by, cx, cy));
  }
  const o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && onSegment(ax, ay, bx, by, cx, cy)) || (o2 === 0 && onSegment(ax, ay, bx, by, dx, dy))
    || (o3 === 0 && onSegment(cx, cy, dx, dy, ax, ay)) || (o4 === 0 && onSegment(cx, cy, dx, dy, bx, by));
}
