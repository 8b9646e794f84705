/**
 * GPS likelihood of a venue: the person stood somewhere on the venue's footprint (a disc), and the
 * estimated centre errs by a Gaussian of the centre's sigma. The disc is folded into the Gaussian's
 * variance (a uniform disc of radius R has per-axis variance R²/4). A broad component keeps one
 * unlucky centre (a whole visit under a multipath reflection) from zeroing the true venue.
 */
const OUTLIER_SHARE = 0.04;
const OUTLIER_SCALE = 4;

/** Log density (per m², up to a constant shared by all venues) of the centre at distance d. */
export function gpsLogLik(d: number, centreSigma: number, radius: number): number {
  const v = centreSigma * centreSigma + (radius * radius) / 4;
  const z = (d * d) / (2 * v);
  const core = (1 - OUTLIER_SHARE) * Math.exp(-z) / v;
  const wide = (OUTLIER_SHARE * Math.exp(-z / (OUTLIER_SCALE * OUTLIER_SCALE))) / (v * OUTLIER_SCALE * OUTLIER_SCALE);
  return Math.log(core + wide);
}
