/**
 * Indoors or out, from how good the fixes are. GPS under a roof errs by tens of metres, under the
 * open sky by a few, and phones report that honestly enough in `accuracy`: a stay whose fixes
 * claim 8 m was outside, one whose fixes claim 35 m was in. A park is visited outside, a shop
 * inside, so the stay's accuracy says something about the kind of place that its position
 * cannot. The hand shares below are the prior; learned-priors.ts learns each kind's share per app.
 */
import { KINDS, KIND_COUNT, type Kind } from '../kinds.js';

/** Per-fix sigma (m) that splits indoor from outdoor fixes; the split is soft over ±15 % of it. */
export const INDOOR_SIGMA_M = 15;
const SOFTNESS = 0.15;

/** How likely the fixes were taken indoors, from their typical per-fix sigma; NaN when unknown. */
export function indoorShare(fixSigma: number): number {
  if (!(fixSigma > 0)) return NaN;
  return 1 / (1 + Math.exp(-Math.log(fixSigma / INDOOR_SIGMA_M) / SOFTNESS));
}

/** Share of a kind's visits spent indoors, before anything is learned: open-air places are the exception. */
const HAND: Partial<Record<Kind, number>> = { outdoor: 0.1, transit: 0.5 };
export const HAND_INDOOR = Float64Array.from({ length: KIND_COUNT }, (_, k) => HAND[KINDS[k]] ?? 0.85);

/** log P(what the fixes look like | kind), given the kind's indoor share. */
export function indoorLog(kindIndoor: number, share: number): number {
  if (Number.isNaN(share)) return 0;
  return Math.log(kindIndoor * share + (1 - kindIndoor) * (1 - share));
}
