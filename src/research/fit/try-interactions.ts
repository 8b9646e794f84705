/**
 * Whether an interaction earns its place, on labelled rankings (a --save-stays file): every other
 * stay fits, the rest judge; each candidate interaction is a term's copy switched on under a
 * condition (WHEN), so its coefficient is the term's change there.
 *
 *   node dist/src/research/fit/try-interactions.js STAYS.jsonl ['σ ≥ 15 m','counted venue',…]
 */
import { describe, fitLogit, type Columns } from './logit.js';
import { F, FACTORS, type LabelledStay } from './record.js';
import { readStays } from './stays-file.js';

const stays = readStays(process.argv[2]);
const fitOn = stays.filter((_, i) => i % 2 === 0), judge = stays.filter((_, i) => i % 2 === 1);
const base: Columns = { k: F, row: (s, r, out) => { for (let j = 0; j < F; j++) out[j] = s.x[r * F + j]; } };
const T = stays[0].temperature;
const report = (name: string, cols: Columns) => {
  const prior = new Float64Array(cols.k).fill(1 / T);
  const fit = fitLogit(fitOn, cols, prior, 1);
  const d = describe(judge, cols, fit.beta);
  console.log(JSON.stringify({ name, judged_top1: d.top1.toFixed(4), log_loss: d.logLoss.toFixed(4), ece: d.ece.toFixed(4), extra: Array.from(fit.beta.slice(F)).map((b) => b.toFixed(3)) }));
};
report('terms as they are', base);
const COUNTED = FACTORS.indexOf('counted');
/** Conditions an interaction switches a term's copy on by: the stay's centre error, or the candidate's source counting visits (its counted term is not 0). */
const WHEN: Record<string, (s: LabelledStay, r: number) => boolean> = {
  'σ ≥ 15 m': (s) => s.sigma >= 15, 'σ ≥ 30 m': (s) => s.sigma >= 30, 'counted venue': (s, r) => s.x[r * F + COUNTED] !== 0,
};
const which = (process.argv[3] ?? Object.keys(WHEN).join(',')).split(',');
for (const f of ['distance', 'popularity', 'none', 'hour_of_week', 'dwell', 'type', 'history_labels', 'history'] as const) {
  for (const w of which) {
    const k = FACTORS.indexOf(f), on = WHEN[w];
    report(`${f} × [${w}]`, { k: F + 1, row: (s: LabelledStay, r, out) => { base.row(s, r, out); out[F] = on(s, r) ? s.x[r * F + k] : 0; } });
  }
}
