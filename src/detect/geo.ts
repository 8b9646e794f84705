/**
 * Local planar geometry. Venues and fixes of one event lie within a few kilometres, where an
 * equirectangular projection errs far less than GPS does, and costs no trigonometry per pair.
 */
export const M_PER_DEG = 111_320;
const RAD = Math.PI / 180;

/** Metres per degree of longitude at a latitude. */
export const mPerDegLon = (lat: number): number => M_PER_DEG * Math.cos(lat * RAD);

export function metres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dy = (lat2 - lat1) * M_PER_DEG;
  const dx = (lon2 - lon1) * mPerDegLon((lat1 + lat2) / 2);
  return Math.sqrt(dx * dx + dy * dy);
}
