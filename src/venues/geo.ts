/** Small geodesy helpers shared by the importers, the index and the store. */
import { M_PER_DEG } from '../geo/distance.js';

const RAD = Math.PI / 180;
/** Mercator blows up at the poles; venues past this latitude are clamped for indexing only. */
const MAX_LAT = 89.5;

/**
 * Mercator y in degree units. The index stores (lon, mercY) because Mercator is conformal:
 * locally, plain Euclidean distance in these units is proportional to metres in every
 * direction, so Flatbush's nearest-first order is the true nearest-first order.
 */
export function mercY(lat: number): number {
  const l = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * RAD;
  return Math.log(Math.tan(Math.PI / 4 + l / 2)) / RAD;
}

export function latFromMercY(y: number): number {
  return (2 * Math.atan(Math.exp(y * RAD)) - Math.PI / 2) / RAD;
}

/** Metres per index unit at a latitude (Mercator's scale factor is 1/cos(lat)). */
export function metresPerIndexUnit(lat: number): number {
  return M_PER_DEG * Math.cos(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * RAD);
}

export function validLatLon(lat: unknown, lon: unknown): boolean {
  return typeof lat === 'number' && typeof lon === 'number' && Number.isFinite(lat) && Number.isFinite(lon)
    && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}
