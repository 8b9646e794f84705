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
 *        [--rounds 3] [--from hand|defaults] [--with JSON] [--calibrate-only 1] [--stays LABELLED.jsonl] [--save-stays FILE] [--venues-dir DIR] [--write]
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

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const USAGE = 'ranking:refit -- --fit DIR,DIR --held-out DIR,DIR [--rounds 3] [--from hand|defaults] [--with JSON] [--calibrate-only 1] [--stays FILE] [--save-stays FILE] [--venues-dir DIR] [--write 1]';
const { values: opts } = flags(['fit', 'held-out', 'rounds', 'from', 'stays', 'save-stays', 'venues-dir', 'write', 'ridge', 'with', 'calibrate-only'], USAGE);
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
const cols = calibrateOnly ? CALIBRATION : COLUMNS;
/** A coefficient per term, from the fit's columns. */
const perTerm = (beta: Float64Array): Float64Array => (calibrateOnly ? Float64Array.from(FACTORS, (_, k) => (k === NONE ? beta[1] : beta[0])) : beta);

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
function apply(p: ModelParams, beta: Float64Array): ModelParams {
  const T = 1 / beta[FACTORS.indexOf('distance')];
  const o: Record<string, Record<string, number>> = { weights: { temperature: T } };
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
  for (const f of [...FACTORS, 'temperature']) {
    const [g, key] = f === 'temperature' ? ['weights', 'temperature'] as const : PARAM[f as Factor];
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
  const prior = new Float64Array(cols.k).fill(1 / T);
  const before = describe(stays, cols, prior);
  const fit = fitLogit(stays, cols, prior, ridge);
  const after = describe(stays, cols, fit.beta);
  const beta = perTerm(fit.beta);
  say(`round ${r}: ${fit.stays} stays, ${fit.iterations} Newton steps; in-sample top1 ${before.top1.toFixed(4)} → ${after.top1.toFixed(4)}, log loss ${before.logLoss.toFixed(4)} → ${after.logLoss.toFixed(4)}, ECE ${before.ece.toFixed(4)} → ${after.ece.toFixed(4)}`);
  say(`  coefficients (× the terms as ranked at T = ${T}): ${FACTORS.map((f, k) => `${f} ${beta[k].toFixed(3)}`).join(', ')}`);
  params = apply(params, beta);
  say(`  weights now: ${JSON.stringify(fitted(params))}`);
}
if (opts['save-stays']) writeStays(opts['save-stays'], stays);

/** Held-out: the defaults as they are against the refit, each set replayed from scratch. */
interface Row { set: string; before: Record<string, unknown>; after: Record<string, unknown> }
const rows: Row[] = [];
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

// Defaults change only when no held-out set loses top1, ECE stays within 0.03 or does not grow, and streams keep precision and recall.
const worse = rows.filter(({ before: b, after: a }) => (a.top1 as number) < (b.top1 as number)
  || (typeof a.ece === 'number' && a.ece > Math.max(0.03, b.ece as number))
  || (typeof a.precision === 'number' && ((a.precision as number) < (b.precision as number) - 0.002 || (a.recall as number) < (b.recall as number) - 0.002)));
if (opts.write) {
  if (worse.length) die(`not written: worse on ${worse.map((w) => w.set).join(', ')}`);
  const file = path.join(ROOT, 'src/detect/fitted-params.ts');
  const head = fs.readFileSync(file, 'utf8').split('\nexport const FITTED')[0];
  const body = `export const FITTED: { readonly [group: string]: { readonly [param: string]: number } } = ${JSON.stringify(fitted(params), null, 2)};\n`;
  fs.writeFileSync(file, `${head}\n${body}`);
  say(`wrote ${file} (fitted on ${fitSets.map((d) => path.basename(d)).join(', ')}; held out ${heldOut.map((d) => path.basename(d)).join(', ')})`);
}
