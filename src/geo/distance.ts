/**
 * Distances on the Earth, one model for the whole service: a sphere of the WGS84 mean radius.
 * Detection, geofences and the venue store all measure with these, so a venue 50 m away is 50 m
 * away to each of them.
 */
export const EARTH_RADIUS_M = 6_371_008.8;
/** Metres per degree along a great circle (of latitude, everywhere): about 111,195. */
export const M_PER_DEG = (Math.PI * EARTH_RADIUS_M) / 180;
const RAD = Math.PI / 180;

/** Metres per degree of longitude at a latitude. */
export const mPerDegLon = (lat: number): number => M_PER_DEG * Math.cos(lat * RAD);

/**
 * Equirectangular metres at the mean latitude. Points of one event lie within a few kilometres,
 * where this errs far less than GPS does, and costs one cosine per pair.
 */
export function metres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dy = (lat2 - lat1) * M_PER_DEG;
  const dx = (lon2 - lon1) * mPerDegLon((lat1 + lat2) / 2);
  return Math.sqrt(dx * dx + dy * dy);
}

/** Great-circle metres: exact on the sphere at any distance. */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
