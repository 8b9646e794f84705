/**
 * The ranking's fitted parameters, written by `npm run ranking:refit -- --write`
 * (src/research/refit.ts; docs/ranking.md, "Fitted weights"). Not edited by hand: refit instead.
 * params.ts lays them over its hand-set values to make DEFAULT_PARAMS.
 */
export const FITTED: { readonly [group: string]: { readonly [param: string]: number } } = {
  "weights": {
    "none": -6.231,
    "temperature": 1.158
  }
};
