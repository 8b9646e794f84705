/**
 * Priors that do not depend on where the fixes are: how popular a venue is, how likely its kind
 * is at this local hour of the week, and how well the stay's length suits its kind.
 */
import { KINDS, KIND_COUNT, type Kind } from '../kinds.js';

/** Check-ins follow a heavy tail; a log keeps a landmark from swamping geometry. */
export const popularityLog = (popularity: number): number => Math.log1p(popularity > 0 ? popularity : 0);

// Hours (local) when each kind is busy: [from, to, weight] on weekdays, and on weekends.
// Outside the listed spans a kind keeps a base weight of 1: people do odd things at odd hours.
type Spans = Array<[number, number, number]>;
const BUSY: Record<Kind, [Spans, Spans]> = {
  home: [[[0, 8, 4], [18, 24, 4]], [[0, 11, 4], [17, 24, 3]]],
  lodging: [[[0, 9, 3], [19, 24, 3]], [[0, 11, 3], [18, 24, 3]]],
  work: [[[8, 18, 6]], [[10, 16, 1.5]]],
  school: [[[8, 17, 5]], [[10, 16, 1.2]]],
  quick: [[[7, 12, 4], [12, 18, 2]], [[8, 13, 4], [13, 18, 2]]],
  night: [[[0, 3, 4], [17, 24, 5]], [[0, 4, 5], [16, 24, 5]]],
  meal: [[[11, 15, 4], [17, 22, 4]], [[10, 15, 4], [17, 22, 4]]],
  active: [[[6, 10, 3], [16, 21, 3]], [[8, 18, 3]]],
  airport: [[[5, 23, 2]], [[5, 23, 2]]],
  transit: [[[6, 10, 4], [16, 20, 4], [10, 16, 2]], [[9, 22, 2.5]]],
  outdoor: [[[9, 20, 2.5]], [[9, 20, 4]]],
  shop: [[[10, 20, 4]], [[10, 19, 5]]],
  culture: [[[10, 23, 3]], [[9, 23, 4]]],
  medical: [[[8, 18, 5]], [[9, 14, 1.5]]],
  other: [[[8, 21, 3]], [[9, 21, 3]]],
};

/** log P(hour of week | kind), normalised over the week per kind. */
const TOW = new Float64Array(KIND_COUNT * 168);
for (let k = 0; k < KIND_COUNT; k++) {
  const [weekday, weekend] = BUSY[KINDS[k]];
  let sum = 0;
  for (let h = 0; h < 168; h++) {
    const day = Math.floor(h / 24), hour = h % 24;
    let wgt = 1;
    for (const [a, b, x] of day < 5 ? weekday : weekend) if (hour >= a && hour < b) wgt = Math.max(wgt, x);
    TOW[k * 168 + h] = wgt;
    sum += wgt;
  }
  for (let h = 0; h < 168; h++) TOW[k * 168 + h] = Math.log((TOW[k * 168 + h] / sum) * 168);
}
export const timeOfWeekLog = (kind: number, hourOfWeek: number): number => TOW[kind * 168 + hourOfWeek];

/** Typical stay in minutes per kind, and the log-normal spread around it. */
const DWELL_MIN: Record<Kind, number> = {
  home: 420, lodging: 420, work: 180, school: 120, quick: 15, night: 90, meal: 45, active: 70, airport: 90,
  transit: 8, outdoor: 40, shop: 20, culture: 100, medical: 60, other: 30,
};
const DWELL_SIGMA = 1.0;
const LOG_DWELL = Float64Array.from(KINDS, (k) => Math.log(DWELL_MIN[k] * 60));

/**
 * log p(dwell | kind) relative to a kind-free reference. Stays are often cut short by what comes
 * next, so short dwells get a floor that keeps them from ruling out long-stay kinds.
 */
export function dwellLog(kind: number, dwellS: number): number {
  if (!(dwellS > 0)) return 0;
  const z = (Math.log(dwellS) - LOG_DWELL[kind]) / DWELL_SIGMA;
  return Math.log(Math.exp(-0.5 * z * z) + 0.1);
}
