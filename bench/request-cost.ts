/**
 * What one detection costs by itself, request by request: the soak's request set (bench:soak's
 * vdsim New York set, or the bundled sample) through the worker's task function in this one
 * thread, against the venues imported as bench:soak imports them, with no HTTP, no queue and no
 * other thread competing. Each pass replays the whole set under new user ids, as bench:soak does;
 * the first pass is cold (modules, caches, JIT), the later ones are the steady state.
 *
 *   node dist/bench/request-cost.js [--passes N (default 4)] [--requests DIR] [--no-doc]
 *
 * Beside each pass, the floor's work on the same bodies (SHA-256 and HMAC of the signature,
 * gunzip, strict UTF-8 and JSON.parse: what bench/floor-server.ts does) in the same thread. The
 * point is the tail: a client p99 under load can never be lower than the p99 of the work itself,
 * so this says what part of bench:soak's client p99 is Dwell's computation and what part is
 * waiting (queueing, GC, the scheduler), and which requests make the tail (by fixes sent).
 * Wall time per request (performance.now), measured on a quiet machine it is the thread's CPU.
 *
 * Part-load passes (`--part-load-passes`, default 2, interleaved with the back-to-back ones) leave
 * the thread idle `--gap-ms` (default 3) before each measured piece of work, as a server's worker
 * sleeps between requests at part load (300 req/s over two workers: ~6 ms apart). On a virtual
 * machine a thread that slept wakes on cold caches, so the same work takes longer than back to
 * back; the ratio says how much of a part-load server's per-request cost is that, not Dwell's code.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { gunzipSync, gzipSync } from 'node:zlib';
import { loadStore } from '../src/venues/store.js';
import { runImport } from '../src/venues/import/build.js';
import { bodySha256, stringToSign } from '../src/signing.js';
import { parseJson } from '../src/http/json-body.js';
import type { DetectTask } from '../src/pipeline/task.js';
import { loadRequestSet } from './lib/soak-requests.js';
import { median, summarize, type Summary } from './lib/stats.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const say = (s: string) => process.stderr.write(`[bench:request-cost] ${s}\n`);
const argv = readFlags({ passes: { type: 'string' }, 'part-load-passes': { type: 'string' }, 'gap-ms': { type: 'string' }, requests: { type: 'string' }, 'no-doc': { type: 'boolean' } });
const passes = numFlag('passes', argv.passes, 4, 2, 50);
const partPasses = numFlag('part-load-passes', argv['part-load-passes'], 2, 0, 50);
const gapMs = numFlag('gap-ms', argv['gap-ms'], 3, 1, 100);

const set = loadRequestSet(argv.requests, say);
const tmp = mkdtempSync(path.join(tmpdir(), 'dwell-request-cost-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let storeDir: string | undefined;
if (set.venuesFile) {
  storeDir = path.join(tmp, 'venues');
  const r = await runImport({ format: 'jsonl', file: set.venuesFile, out: storeDir, quiet: true });
  say(`imported ${r.venues} venues in ${r.seconds} s`);
}
const store = await loadStore(storeDir ?? fileURLToPath(new URL('../../data/monaco', import.meta.url)));
// Imported after the store, so the worker module's start-up (gazetteer) is outside every figure.
const detect = (await import('../workers/detect.js')).default as (t: DetectTask) => Promise<unknown>;
const dataDir = path.join(tmp, 'data');
const app = { app_key: 'ak_cost', confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false };
const SECRET = 'request-cost-secret';

interface Body { events?: Array<{ data: unknown[] }>; data?: unknown[]; advertising_id?: string; user_id?: string }
const fixesOf = (b: Body) => (b.events ? b.events.reduce((s, e) => s + e.data.length, 0) : (b.data?.length ?? 0));
const bodies = set.bodies as Body[];
const fixes = bodies.map(fixesOf);

/** The set under the pass's user ids, gzipped as a device sends it (made before timing). */
function passBodies(pass: number): Buffer[] {
  return bodies.map((b) => gzipSync(JSON.stringify({ ...b, advertising_id: b.advertising_id && `${b.advertising_id}.${pass}`, user_id: b.user_id && `${b.user_id}.${pass}` })));
}

let sink = 0;
/** What the floor server does with a request's body. */
function floorWork(gz: Buffer): void {
  const sha = bodySha256(gz);
  sink += createHmac('sha256', SECRET).update(stringToSign('1700000000', 'POST', '/v1/detect', sha)).digest('hex').length;
  sink += (parseJson(gunzipSync(gz)) as object) ? 1 : 0;
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** After the cold pass, part-load passes alternate with back-to-back ones, so drift in the machine's load falls on both. */
const schedule: boolean[] = [false];
for (let b2b = passes - 1, part = partPasses; b2b + part > 0;) {
  const gapped = part > 0 && (b2b === 0 || schedule[schedule.length - 1] === false);
  schedule.push(gapped);
  if (gapped) part--; else b2b--;
}

interface PassResult { pass: number; gapped: boolean; dwell: Summary; floor: Summary; perRequest: Float64Array }
const results: PassResult[] = [];
for (let pass = 0; pass < schedule.length; pass++) {
  const gapped = schedule[pass];
  const gz = passBodies(pass);
  const t = new Float64Array(gz.length), f = new Float64Array(gz.length);
  for (let i = 0; i < gz.length; i++) {
    if (gapped) await idle(gapMs);
    const t0 = performance.now();
    floorWork(gz[i]);
    f[i] = performance.now() - t0;
    if (gapped) await idle(gapMs);
    const t1 = performance.now();
    await detect({ body: gz[i], gzip: true, sync: true, app, store, dataDir, now: Date.now() });
    t[i] = performance.now() - t1;
  }
  const r = { pass, gapped, dwell: summarize(t.slice().sort()), floor: summarize(f.slice().sort()), perRequest: t };
  results.push(r);
  say(`pass ${pass + 1}/${schedule.length}${gapped ? ` (idle ${gapMs} ms before each)` : ''}: detection p50 ${r.dwell.p50.toFixed(2)} p99 ${r.dwell.p99.toFixed(2)} max ${r.dwell.max.toFixed(1)} ms; floor's work p50 ${r.floor.p50.toFixed(3)} p99 ${r.floor.p99.toFixed(2)} ms`);
}

const ms = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));
const rows = results.map((r) => `| ${r.pass + 1}${r.pass === 0 ? ' (cold)' : ''} | ${r.gapped ? `idle ${gapMs} ms before each` : 'back to back'} | ${ms(r.dwell.mean)} | ${ms(r.dwell.p50)} | ${ms(r.dwell.p90)} | ${ms(r.dwell.p99)} | ${ms(r.dwell.p999)} | ${ms(r.dwell.max)} | ${ms(r.floor.p50)} | ${ms(r.floor.p99)} |`);

// Which requests make the tail: the steady passes together, by fixes sent.
const classes: Array<[string, (n: number) => boolean]> = [['< 50', (n) => n < 50], ['50–99', (n) => n >= 50 && n < 100], ['100–199', (n) => n >= 100 && n < 200], ['≥ 200', (n) => n >= 200]];
const steady = results.slice(1).filter((r) => !r.gapped);
const pooled = (rs: PassResult[]) => summarize(Float64Array.from(rs.flatMap((r) => [...r.perRequest])).sort());
const all = pooled(steady);
const partRuns = results.filter((r) => r.gapped);
const part = partRuns.length ? pooled(partRuns) : undefined;
/** The floor's work p50, the median over passes: the same ratio for work that is not Dwell's. */
const floorP50 = (rs: PassResult[]) => median(rs.map((r) => r.floor.p50));
const partLine = part
  ? `\nPart load (the thread idle ${gapMs} ms before each piece of work, ${partRuns.length} passes interleaved with the back-to-back ones): detection p50 ${ms(part.p50)} ms, p99 ${ms(part.p99)} ms, mean ${ms(part.mean)} ms: ×${(part.mean / all.mean).toFixed(2)} the back-to-back mean, p99 ×${(part.p99 / all.p99).toFixed(2)}; the floor's work p50 ×${(floorP50(partRuns) / floorP50(steady)).toFixed(2)}. The same requests, so the difference is the machine waking a thread that slept, which a server's workers meet on every request at part load.\n`
  : '';
const slowest = steady.reduce((n, r) => n + r.perRequest.filter((x) => x > all.p99).length, 0);
const classRows = classes.map(([name, inClass]) => {
  const xs = Float64Array.from(steady.flatMap((r) => [...r.perRequest].filter((_, i) => inClass(fixes[i])))).sort();
  const s = summarize(xs);
  const over = xs.filter((x) => x > all.p99).length;
  return `| ${name} | ${(100 * xs.length / (steady.length * bodies.length)).toFixed(1)} % | ${ms(s.mean)} | ${ms(s.p50)} | ${ms(s.p99)} | ${(100 * over / Math.max(1, slowest)).toFixed(0)} % |`;
});

const md = `**request-cost**: ${set.note}; one thread, in process, ${bodies.length} requests a pass, ${schedule.length} passes (${partRuns.length} of them at part load), each under new user ids. Detection is the worker's whole task (inflate, parse, validate, detect, the answer's bytes); the floor's work is what bench/floor-server.ts does with the same body (hashes, HMAC, inflate, parse).

| pass | requests | detection mean ms | p50 | p90 | p99 | p99.9 | max | floor's work p50 ms | floor's work p99 ms |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}
${partLine}
The back-to-back passes after the first together: detection p99 ${ms(all.p99)} ms. By fixes sent (the share of requests, their detection time, and their share of the requests slower than that p99):

| fixes | requests | mean ms | p50 | p99 | of the slowest 1 % |
|---|---:|---:|---:|---:|---:|
${classRows.join('\n')}
`;
process.stdout.write(`\n${md}\n`);
if (sink === -1) console.log(sink);
writePerformanceSection('request-cost', md);
process.exit(0);
