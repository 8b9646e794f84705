/**
 * The point of a WKB geometry (GeoParquet's encoding; OGC Simple Features 06-103r4 §8.2):
 * a byte-order byte, a uint32 type, then the coordinates, x (longitude) first. ISO Z/M/ZM
 * types (1001, 2001, 3001) and PostGIS EWKB flags (Z 0x80000000, M 0x40000000, SRID
 * 0x20000000) are understood. A single-point MultiPoint is accepted; anything else is not a
 * point and answers undefined (the caller reports the row).
 */
export interface LonLat { lon: number; lat: number }

const EWKB_Z = 0x80000000, EWKB_M = 0x40000000, EWKB_SRID = 0x20000000;

export function wkbPoint(bytes: Uint8Array): LonLat | undefined {
  return read(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, 0);
}

function read(view: DataView, at: number, depth: number): LonLat | undefined {
  if (view.byteLength < at + 5 || depth > 1) return undefined;
  const little = view.getUint8(at) === 1;
  let type = view.getUint32(at + 1, little);
  let pos = at + 5;
  if (type & EWKB_SRID) pos += 4;
  type &= ~(EWKB_Z | EWKB_M | EWKB_SRID) >>> 0;
  const base = type % 1000;
  if (base === 4) { // MultiPoint of exactly one point
    if (view.byteLength < pos + 4 || view.getUint32(pos, little) !== 1) return undefined;
    return read(view, pos + 4, depth + 1);
  }
  if (base !== 1 || view.byteLength < pos + 16) return undefined;
  const lon = view.getFloat64(pos, little);
  const lat = view.getFloat64(pos + 8, little);
  return Number.isNaN(lon) || Number.isNaN(lat) ? undefined : { lon, lat }; // POINT EMPTY is NaN, NaN
}

/** A point from WKB bytes or from a GeoJSON Point (a reader that decoded GeoParquet itself). */
export function pointOf(geometry: unknown): LonLat | undefined {
  if (geometry instanceof Uint8Array) return wkbPoint(geometry);
  const g = geometry as { type?: string; coordinates?: unknown } | null;
  if (g?.type === 'Point' && Array.isArray(g.coordinates) && g.coordinates.length >= 2) {
    const [lon, lat] = g.coordinates as number[];
    if (typeof lon === 'number' && typeof lat === 'number') return { lon, lat };
  }
  return undefined;
}
