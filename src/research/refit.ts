/**
 * The ranking's refit (docs/ranking.md, "Fitted weights"): replays the fitting sets through the
 * detection core, records every stay's candidates with the ranking's named terms (fit/record.ts),
 * fits one coefficient per term by maximum conditional likelihood over each stay's candidates and
 * "none of these" (fit/logit.ts), and repeats from the new weights (what the app learns online
 * depends on the ranking's answers, so the terms move with the weights). The GPS term stays a log
 * likelihood in nats: its coefficient becomes 1 / temperature, the others weights relative to it,
 * so calibration comes from the same fit. Then it replays the held-out sets before and after and
 * prints top1, top3 and ECE; `--write` makes the result the defaults (src/detect/fitted-params.ts),
 * only when no held-out set is worse.
 *
 *   npm run ranking:refit -- --fit ../sets/nyc-s1,../sets/mc-m1 --held-out ../sets/nyc-s2,../sets/mc-m2
 *        [--rounds 3] [--from hand|defaults] [--with JSON] [--calibrate-only 1] [--counted-interactions 1] [--top1-tolerance 0.002] [--stays LABELLED.jsonl] [--save-stays FILE] [--venues-dir DIR] [--write]
 *
 * A set's venue file is its meta.json `venues` in --venues-dir (default ../shared/data/vd beside
 * the checkout). --stays adds labelled rankings from elsewhere (fit/stays-file.ts: an app's
 * feedback, explained); --save-stays writes the last round's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARAMS, HAND_PARAMS, withParams, type ModelParams, type ParamOverrides } from '../detect/params.js';
import { recording } from '../detect/rank.js';
import { die, flags } from './flags.js';
import { readJsonl, replay, venueStore, type Answer } from './replay.js';
import { F, FACTORS, FitRecorder, label, type Factor, type LabelledStay } from './fit/record.js';
import { describe, fitLogit, type Columns } from './fit/logit.js';
import { readStays, writeStays } from './fit/stays-file.js';
import { TOP1_TOLERANCE, worseSets, type HeldOutRow } from './fit/guard.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const USAGE = 'ranking:refit -- --fit DIR,DIR --held-out DIR,DIR [--rounds 3] [--from hand|defaults] [--with JSON] [--calibrate-only 1] [--counted-interactions 1] [--top1-tolerance 0.002] [--stays FILE] [--save-stays FILE] [--venues-dir DIR] [--write 1]';
const { values: opts } = flags(['fit', 'held-out', 'rounds', 'from', 'stays', 'save-stays', 'venues-dir', 'write', 'ridge', 'with', 'calibrate-only', 'counted-interactions', 'top1-tolerance'], USAGE);
if (!opts.fit && !opts.stays && !opts.with) die(`usage: ${USAGE}`);
const venuesDir = opts['venues-dir'] ?? path.resolve(ROOT, '../shared/data/vd');
const list = (s: string | undefined) => (s ?? '').split(',').filter(Boolean);
const fitSets = list(opts.fit), heldOut = list(opts['held-out']);
const rounds = Number(opts.rounds ?? 3), ridge = Number(opts.ridge ?? 1);
const say = (msg: string) => process.stderr.write(`[refit] ${msg}\n`);

/** Where each term's coefficient goes in the parameters. */
const PARAM: Record<Factor, [keyof ModelParams, string]> = {
  distance: ['weights', 'gps'], popularity: ['weights', 'popularity'], counted: ['weights', 'counted'],
  hour_of_week: ['weights', 'timeOfWeek'], dwell: ['weights', 'dwell'], indoor: ['weights', 'indoor'], type: ['weights', 'type'],
  wifi_names: ['weights', 'ssid'], wifi_networks: ['weights', 'pooledAp'], history: ['weights', 'history'],
  history_labels: ['weights', 'labels'], beacons: ['beacons', 'weight'], beacons_learned: ['beacons', 'learnedWeight'], none: ['weights', 'none'],
};
const COLUMNS: Columns = { k: F, row: (s, r, out) => { for (let j = 0; j < F; j++) out[j] = s.x[r * F + j]; } };
const NONE = FACTORS.indexOf('none');
/** --calibrate-only: the weights' ratios kept, one coefficient for their sum (1 / temperature) and one for "none". */
const CALIBRATION: Columns = { k: 2, row: (s, r, out) => {
  let sum = 0;
  for (let j = 0; j < F; j++) if (j !== NONE) sum += s.x[r * F + j];
  out[0] = sum; out[1] = s.x[r * F + NONE];
} };
const calibrateOnly = !!opts['calibrate-only'];
const COUNTED = FACTORS.indexOf('counted'), LABELS = FACTORS.indexOf('history_labels'), TOW = FACTORS.indexOf('hour_of_week');
/**
 * --counted-interactions: two more columns, the history labels and hour-of-week terms again at a
 * candidate whose source counts visits (its counted term is not 0, rank.ts `isCounted`); their
 * coefficients move weights.labelsCounted and weights.timeCounted (fit/try-interactions.ts judged them).
 */
const interactions = !!opts['counted-interactions'];
const BASE = calibrateOnly ? CALIBRATION : COLUMNS;
const cols: Columns = interactions ? { k: BASE.k + 2, row: (s, r, out) => {
  BASE.row(s, r, out);
  const on = s.x[r * F + COUNTED] !== 0;
  out[BASE.k] = on ? s.x[r * F + LABELS] : 0; out[BASE.k + 1] = on ? s.x[r * F + TOW] : 0;
} } : BASE;
/** A coefficient per term, from the fit's columns. */
const perTerm = (beta: Float64Array): Float64Array => (calibrateOnly ? Float64Array.from(FACTORS, (_, k) => (k === NONE ? beta[1] : beta[0])) : beta.slice(0, F));
/** The counted-venue multipliers' change: the term's coefficient there over its coefficient elsewhere. */
const countedRatios = (beta: Float64Array, per: Float64Array) => ({
  labelsCounted: (per[LABELS] + beta[BASE.k]) / per[LABELS], timeCounted: (per[TOW] + beta[BASE.k + 1]) / per[TOW],
});

const venuesOf = (dir: string) => path.join(venuesDir, (JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as { venues: string }).venues);

/** Replays a structured set under `params` and labels each ranked visit with its true venue (scored visits only). */
async function record(dir: string, params: ModelParams): Promise<LabelledStay[]> {
  const truth = new Map<string, { venue_id: string | null; scored: boolean }>();
  for (const t of readJsonl<{ request_id: string; event_id: string; type: string; venue_id: string | null; scored: boolean }>(path.join(dir, 'truth.jsonl'))) {
    if (t.type === 'visit') truth.set(`${t.request_id}/${t.event_id}`, t);
  }
  const out: LabelledStay[] = [];
  replay({ venues: await venueStore(venuesOf(dir)), requests: dir, params, noScore: true, around: (body, run) => {
    if (!body.events) return run();
    const rec = new FitRecorder();
    const data = recording(rec, run) as Array<{ event_id: string; visit: { event_type: string; place?: { estimated_geolocation: unknown } } }>;
    let next = 0;
    for (const d of data) {
      // One ranking per visit that had a position (an unlocated visit is never ranked).
      if (d.visit.event_type !== 'visit' || !d.visit.place?.estimated_geolocation) continue;
      const s = rec.rankings[next++];
      const t = truth.get(`${body.request_id}/${d.event_id}`);
      if (s && t?.scored && s.rows > 0) out.push(label(s, t.venue_id));
    }
    if (next !== rec.rankings.length) throw new Error(`request ${body.request_id}: ${rec.rankings.length} rankings for ${next} located visits`);
    return data as Answer;
  } });
  return out;
}

/** The parameters whose terms, as ranked under `p`, get coefficients β: the GPS weight kept, the temperature 1 / β_distance. */
function apply(p: ModelParams, beta: Float64Array, ratios?: { labelsCounted: number; timeCounted: number }): ModelParams {
  const T = 1 / beta[FACTORS.indexOf('distance')];
  const o: Record<string, Record<string, number>> = { weights: { temperature: T } };
  if (ratios) { o.weights.labelsCounted = round(p.weights.labelsCounted * ratios.labelsCounted); o.weights.timeCounted = round(p.weights.timeCounted * ratios.timeCounted); }
  FACTORS.forEach((f, k) => {
    const [g, key] = PARAM[f];
    const before = (p[g] as Record<string, number>)[key];
    (o[g] ??= {})[key] = round(before * beta[k] * T);
  });
  o.weights.temperature = round(T);
  return withParams(p, o as ParamOverrides);
}
const round = (x: number) => Math.round(x * 1000) / 1000;

/** The overrides a parameter set makes to the hand-set values, for fitted-params.ts. */
function fitted(p: ModelParams): Record<string, Record<string, number>> {
  const o: Record<string, Record<string, number>> = {};
  for (const f of [...FACTORS, 'temperature', 'labelsCounted', 'timeCounted']) {
    const [g, key] = f in PARAM ? PARAM[f as Factor] : ['weights', f] as const;
    const v = (p[g] as Record<string, number>)[key];
    if (v !== (HAND_PARAMS[g] as Record<string, number>)[key]) (o[g] ??= {})[key] = v;
  }
  return o;
}

const extra = opts.stays ? readStays(opts.stays) : [];
// --with: parameters laid over the start (a refit's printed `fitted`, to judge it again with --rounds 0).
const start = withParams(opts.from === 'hand' ? HAND_PARAMS : DEFAULT_PARAMS, JSON.parse(opts.with ?? '{}') as ParamOverrides);
let params = start;
let stays: LabelledStay[] = [];
for (let r = 1; r <= rounds; r++) {
  stays = [...extra];
  for (const dir of fitSets) { say(`round ${r}: recording ${dir}`); stays.push(...await record(dir, params)); }
  const T = params.weights.temperature;
  // The interaction columns start at 0 (the model as ranked): the ridge pulls them there, not to 1 / T.
  const prior = new Float64Array(cols.k).fill(1 / T, 0, BASE.k);
  const before = describe(stays, cols, prior);
  const fit = fitLogit(stays, cols, prior, ridge);
  const after = describe(stays, cols, fit.beta);
  const beta = perTerm(fit.beta);
  const ratios = interactions ? countedRatios(fit.beta, beta) : undefined;
  say(`round ${r}: ${fit.stays} stays, ${fit.iterations} Newton steps; in-sample top1 ${before.top1.toFixed(4)} → ${after.top1.toFixed(4)}, log loss ${before.logLoss.toFixed(4)} → ${after.logLoss.toFixed(4)}, ECE ${before.ece.toFixed(4)} → ${after.ece.toFixed(4)}`);
  say(`  coefficients (× the terms as ranked at T = ${T}): ${FACTORS.map((f, k) => `${f} ${beta[k].toFixed(3)}`).join(', ')}`);
  if (ratios) say(`  at counted venues: history labels × ${ratios.labelsCounted.toFixed(3)}, hour of week × ${ratios.timeCounted.toFixed(3)}`);
  params = apply(params, beta, ratios);
  say(`  weights now: ${JSON.stringify(fitted(params))}`);
}
if (opts['save-stays']) writeStays(opts['save-stays'], stays);

/** Held-out: the defaults as they are against the refit, each set replayed from scratch. */
const rows: HeldOutRow[] = [];
const pick = (s: Record<string, unknown>) => s.mode === 'structured'
  ? { top1: s.top1, top3: s.top3, ece: s.ece }
  : { top1: s.venue_top1_of_found, precision: s.precision, recall: s.recall };
for (const dir of heldOut) {
  say(`held out: ${dir}`);
  const before = pick(replay({ venues: await venueStore(venuesOf(dir)), requests: dir, params: DEFAULT_PARAMS }).score);
  const after = pick(replay({ venues: await venueStore(venuesOf(dir)), requests: dir, params }).score);
  rows.push({ set: path.basename(dir), before, after });
  console.log(JSON.stringify({ set: path.basename(dir), before, after }));
}
const f3 = (x: unknown) => (typeof x === 'number' ? x.toFixed(3) : '–');
console.log('\n| set | top1 before → after | top3 before → after | ECE before → after | precision, recall after |');
console.log('|---|---|---|---|---|');
for (const { set, before: b, after: a } of rows) {
  console.log(`| ${set} | ${f3(b.top1)} → ${f3(a.top1)} | ${f3(b.top3)} → ${f3(a.top3)} | ${f3(b.ece)} → ${f3(a.ece)} | ${a.precision === undefined ? '' : `${f3(a.precision)}, ${f3(a.recall)}`} |`);
}
console.log(`\nfitted: ${JSON.stringify(fitted(params))}`);

// The guard and why it tolerates 0.002 of top1: fit/guard.ts.
const tolerance = Number(opts['top1-tolerance'] ?? TOP1_TOLERANCE);
if (!(tolerance >= 0)) die(`--top1-tolerance must be a number ≥ 0, got ${opts['top1-tolerance']}`);
const worse = worseSets(rows, tolerance);
if (opts.write) {
  if (worse.length) die(`not written: worse on ${worse.map((w) => w.set).join(', ')} (top1 tolerance ${tolerance})`);
  const file = path.join(ROOT, 'src/detect/fitted-params.ts');
  const head = fs.readFileSync(file, 'utf8').split('\nexport const FITTED')[0];
  const body = `export const FITTED: { readonly [group: string]: { readonly [param: string]: number } } = ${JSON.stringify(fitted(params), null, 2)};\n`;
  fs.writeFileSync(file, `${head}\n${body}`);
  say(`wrote ${file} (fitted on ${fitSets.map((d) => path.basename(d)).join(', ')}; held out ${heldOut.map((d) => path.basename(d)).join(', ')})`);
}
