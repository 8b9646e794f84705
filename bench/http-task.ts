/**
 * Where a detection request's CPU goes, without HTTP: the bodies of `bench:http` (same seed, same
 * recipe) run through the pieces of the request one after the other in this thread, against the
 * bundled Monaco store and a fresh user store, and the whole Piscina task function as the workers
 * run it. Each figure is CPU time of this process per request (process.cpuUsage: this thread does
 * all the work, LMDB has no background threads here); each is measured over `--rounds` passes
 * and the median and range are shown.
 *
 *   node dist/bench/http-task.js [--bodies N] [--rounds N] [--warmup N] [--seed N] [--venues DIR] [--stage K] [--batch N] [--each] [--gaps-ms 0,3]
 *
 * Rows are cumulative stages (inflate, + parse, + validate, the task, the task's answer posted as
 * Piscina would): the differences are what each step adds. To see the task by function, run
 * one stage (`--stage 4`, 1-based) under `node --cpu-prof`. The user store is fed in request order, so history grows as in the HTTP
 * bench (500 users, a day's requests each).
 *
 * `--gaps-ms 0,3`: each stage once per gap, the thread asleep (Atomics.wait, no CPU) for that long
 * after every request, the gaps' rounds taking turns: what a request costs when its thread slept
 * before it, as a worker does between requests at part load (300 req/s on 2 workers: a request
 * every 6.7 ms a worker), against back to back. The sleep itself is not counted.
 */
import { gunzipSync } from 'node:zlib';
import { transferableSymbol, valueSymbol } from 'piscina';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStore } from '../src/venues/store.js';
import { parseJson } from '../src/http/json-body.js';
import { validateDetect } from '../src/schemas/validate-detect.js';
import type { DetectBatch, DetectTask } from '../src/pipeline/task.js';
import { structuredRequest } from './lib/detect-requests.js';
import { prepareBody } from './lib/signing.js';
import { median } from './lib/stats.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({
  bodies: { type: 'string', default: '2000' },
  rounds: { type: 'string', default: '3' },
  /** Print every pass's figure too: whether a request costs more as the users' history grows. */
  each: { type: 'boolean' },
  /** Warm-up passes of every stage: bench:instructions runs more (steady JIT state under valgrind). */
  warmup: { type: 'string', default: '1' },
  seed: { type: 'string', default: '1' },
  venues: { type: 'string', default: path.join(ROOT, 'data/monaco') },
  stage: { type: 'string' },
  /** The whole task as the server now runs it: batches of N bodies through the worker's `batch` (pipeline/batch.ts); absent, one task a body. */
  batch: { type: 'string' },
  'gaps-ms': { type: 'string', default: '0' },
});
const nBodies = Number(argv.bodies), rounds = Number(argv.rounds), seed = Number(argv.seed), warmup = Number(argv.warmup);

const gz = Array.from({ length: nBodies }, (_, i) => prepareBody(structuredRequest(seed, i)).gz);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-task-'));
process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
const store = await loadStore(path.resolve(argv.venues!));
// Imported after the store so the worker module's start-up (gazetteer load) is outside the figures.
const worker = await import('../workers/detect.js');
const batchSize = argv.batch ? Number(argv.batch) : 0;
const single = worker.default as (t: DetectTask) => unknown;
const batchFn = (worker as unknown as { batch?: (b: DetectBatch) => unknown }).batch;
if (batchSize && !batchFn) throw new Error('--batch: this build\'s worker has no batch entry');
/** One body: as one task, or (--batch N) the N-th body of a batch runs the batch of the last N. */
const detect = (t: DetectTask, i: number): unknown => {
  if (!batchSize) return single(t);
  if ((i + 1) % batchSize !== 0 && i !== gz.length - 1) return 1;
  const from = i - (i % batchSize);
  const items = Array.from({ length: i + 1 - from }, (_, k) => ({ body: gz[from + k], gzip: true, sync: true, app: 0, now }));
  return batchFn!({ v: 1, ctx: { store, dataDir }, apps: [app], items });
};

const app = { app_key: 'ak_bench', confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false };
/** A different `now` per pass, so a replayed body is a new request for stream state. */
let now = Date.now();
/** As the HTTP shell sends it: the gzip bytes as sent, a synchronous app. */
const task = (i: number): DetectTask => ({ body: gz[i], gzip: true, sync: true, app, store, dataDir, now });
/** What postMessage would do with the task's answer: the value cloned, its listed buffers moved. */
function posted(r: unknown): unknown {
  // The task function turns the event loop now and then (pipeline/loop-turn.ts): its answer then comes later.
  if (r instanceof Promise) return r.then(posted);
  const moved = r as Record<symbol, unknown>;
  if (!(valueSymbol in moved)) return structuredClone(r);
  return structuredClone(moved[valueSymbol], { transfer: moved[transferableSymbol] as ArrayBuffer[] });
}

let sink = 0;
const stages: Array<[string, (i: number) => void]> = [
  ['inflate (gunzip)', (i) => { sink += gunzipSync(gz[i]).length; }],
  ['+ strict UTF-8 + JSON.parse', (i) => { sink += (parseJson(gunzipSync(gz[i])) as object) ? 1 : 0; }],
  ['+ validation', (i) => { sink += validateDetect(parseJson(gunzipSync(gz[i])), now).kind.length; }],
  ['whole task (inflate to serialised answer)', (i) => { sink += detect(task(i), i) ? 1 : 0; }],
  ['whole task + its answer posted (cloned, bytes moved)', (i) => { sink += posted(detect(task(i), i)) ? 1 : 0; }],
];

const gaps = argv['gaps-ms']!.split(',').map(Number);
if (gaps.some((g) => !Number.isFinite(g) || g < 0 || g > 1000)) throw new Error(`--gaps-ms: expected milliseconds from 0 to 1000, comma-separated, got ${JSON.stringify(argv['gaps-ms'])}`);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** CPU ms per request over one pass of every body, the thread asleep `gapMs` after each. */
function pass(fn: (i: number) => void, gapMs = 0): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < gz.length; i++) {
    fn(i);
    if (gapMs > 0) Atomics.wait(sleeper, 0, 0, gapMs);
  }
  const c = process.cpuUsage(c0);
  now += 86_400_000;
  return (c.user + c.system) / 1000 / gz.length;
}

if (argv.stage) stages.splice(0, stages.length, stages[Number(argv.stage) - 1]);
// Warm-up: every stage, so the JIT and the caches (venue records, addresses) are in steady state.
for (let w = 0; w < warmup; w++) for (const [, fn] of stages) pass(fn);
const rows: string[] = [];
for (const [name, fn] of stages) {
  const xs = gaps.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) gaps.forEach((g, k) => xs[k].push(pass(fn, g)));
  gaps.forEach((g, k) => {
    const label = gaps.length > 1 || g > 0 ? `${name}, ${g} ms asleep after each` : name;
    if (argv.each) console.log(`${label}, pass by pass: ${xs[k].map((x) => x.toFixed(3)).join(', ')}`);
    rows.push(`| ${label} | ${median(xs[k]).toFixed(3)} | ${Math.min(...xs[k]).toFixed(3)}–${Math.max(...xs[k]).toFixed(3)} |`);
  });
}
console.log(`\n${gz.length} bodies × ${rounds} passes, CPU ms per request (this thread)\n\n| stage | median | range |\n|---|---:|---:|\n${rows.join('\n')}`);
if (sink === -1) console.log(sink);
process.exit(0);
