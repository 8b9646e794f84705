/**
 * Whether an interaction earns its place, on labelled rankings (a --save-stays file): every other
 * stay fits, the rest judge; each candidate interaction is a term's copy switched on when the
 * stay's centre error is at least a threshold, so its coefficient is the term's change there.
 *
 *   node dist/src/research/fit/try-interactions.js STAYS.jsonl
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
for (const f of ['distance', 'popularity', 'none', 'hour_of_week', 'history_labels', 'history'] as const) {
  for (const sigma of [15, 30]) {
    const k = FACTORS.indexOf(f);
    report(`${f} × [σ ≥ ${sigma} m]`, { k: F + 1, row: (s: LabelledStay, r, out) => { base.row(s, r, out); out[F] = s.sigma >= sigma ? s.x[r * F + k] : 0; } });
  }
}
