/**
 * `npm run bench:http`: Dwell's HTTP front end against a floor server, in one run.
 *
 * Starts the real `dwell serve` (its own process, temp data dir, a sync app created through the
 * admin API), then the floor server (bench/floor-server.ts: signature check, gunzip, JSON.parse,
 * 200), one after the other, never both under load at once. For each: a warm-up, then a
 * closed-loop peak phase repeated N times (req/s, p50/p99, errors); for Dwell also an open-loop
 * phase at 70% of its peak, latency measured from each request's scheduled time. Every request
 * is a realistic gzip structured request (3 events × 10 fixes with Wi-Fi scans around Monaco
 * venues), signed with a fresh timestamp and never the same signature twice.
 *
 *   node dist/bench/http.js [--duration S] [--warmup S] [--concurrency N] [--repeats N]
 *                           [--quick] [--server both|dwell|floor] [--bodies N] [--seed N]
 *                           [--open-fraction F] [--open-repeats N] [--cpu-prof DIR] [--json FILE]
 *                           [--also-node PATH] [--baseline DIR]
 *
 * Targets (issue 29, after issue 2's 0.5 ×): Dwell ≥ 0.6 × the floor's req/s (0.7 × the stretch);
 * p99 ≤ 50 ms at 70% of Dwell's peak. The server CPU a request is shown beside the floor's: issue
 * 29's CPU target (the floor's + the detection + 0.1 ms) needs the detection's own CPU, which
 * bench:profile measures (docs/performance.md puts the two together).
 * `--also-node PATH` runs Dwell a second time under that node binary (`npm run bench:http:node24`:
 * Node 24, where Dwell serves on node:http) beside the first and the floor, all three up at once
 * and their peak phases taking turns, and writes the section `http-node-versions`, not `http`.
 * `--baseline DIR` runs the Dwell built in another checkout (DIR/dist) the same way, beside this
 * build and the floor, and writes the section `http-baseline`. With several Dwells up, their open
 * loops run at one rate, the fraction of the slowest one's peak, so the tails compare at equal load;
 * `--open-repeats N` repeats each open phase (taking turns) and reports the median p99 and spread.
 * Exit code 0 when the run completed (whatever the verdict), 1 when it could not run.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, availableParallelism, cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atExit, killAll, spawnService, freePort, waitFor200, type Service } from '../src/devkit/child.js';
import { serveDwell } from '../src/devkit/dwell-serve.js';
import { cpuMeter, type CpuReport } from './lib/cpu.js';
import { threadMeter, type ThreadSplit } from './lib/thread-cpu.js';
import { structuredRequest } from './lib/detect-requests.js';
import { closedLoop, openLoop, type LoadResult } from './lib/load.js';
import { BodyPool, prepareBody } from './lib/signing.js';
import { createSyncApp, DETECT_PATH, makeSender, newPool, signedHeaders, type ErrorSamples, type Target } from './lib/detect-sender.js';
import { median, spread, type Spread } from './lib/stats.js';
import { fmtInt, fmtMs, markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DWELL_CLI = path.join(ROOT, 'dist/src/cli.js');
const FLOOR = path.join(ROOT, 'dist/bench/floor-server.js');

const TARGET_RATIO = 0.6;
const STRETCH_RATIO = 0.7;
const TARGET_P99_MS = 50;

// ---------------------------------------------------------------------------------------------
// Options

const argv = readFlags({
  duration: { type: 'string' },
  warmup: { type: 'string' },
  concurrency: { type: 'string' },
  repeats: { type: 'string' },
  quick: { type: 'boolean', default: false },
  server: { type: 'string', default: 'both' },
  bodies: { type: 'string', default: '2000' },
  seed: { type: 'string', default: '1' },
  'open-fraction': { type: 'string', default: '0.7' },
  'open-repeats': { type: 'string' },
  'cpu-prof': { type: 'string' },
  json: { type: 'string' },
  help: { type: 'boolean', default: false },
  'no-doc': { type: 'boolean', default: false },
  'also-node': { type: 'string', multiple: true },
  baseline: { type: 'string' },
});

if (argv.help) {
  process.stdout.write(fileHelp());
  process.exit(0);
}


const quick = argv.quick === true;
const opts = {
  durationS: numFlag('duration', argv.duration, quick ? 3 : 10, 0.5, 600),
  warmupS: numFlag('warmup', argv.warmup, quick ? 1 : 3, 0, 120),
  concurrency: Math.round(numFlag('concurrency', argv.concurrency, 48, 1, 1024)),
  repeats: Math.round(numFlag('repeats', argv.repeats, quick ? 1 : 3, 1, 20)),
  bodies: Math.round(numFlag('bodies', argv.bodies, 2000, 1, 100_000)),
  seed: Math.round(numFlag('seed', argv.seed, 1, 0, 2 ** 31)),
  openFraction: numFlag('open-fraction', argv['open-fraction'], 0.7, 0.01, 2),
  openRepeats: Math.round(numFlag('open-repeats', argv['open-repeats'], 1, 1, 20)),
  servers: argv.server === 'both' ? ['dwell', 'floor'] : [argv.server ?? ''],
  cpuProf: argv['cpu-prof'] ? path.resolve(argv['cpu-prof']) : undefined,
  json: argv.json ? path.resolve(argv.json) : undefined,
  alsoNode: (argv['also-node'] ?? []).map((p) => path.resolve(p)),
  /** Another checkout, built (its dist/src/cli.js): Dwell of that build runs beside this one, as --also-node does. */
  baseline: argv.baseline ? path.resolve(argv.baseline) : undefined,
};
if (!opts.servers.every((s) => s === 'dwell' || s === 'floor')) {
  process.stderr.write(`--server: both, dwell or floor, got ${JSON.stringify(argv.server)}\n`);
  process.exit(2);
}

function fileHelp(): string {
  return `usage: node dist/bench/http.js [options]
  --duration S        seconds of each measured phase (default 10; --quick 3)
  --warmup S          seconds of warm-up before the peak phases (default 3; --quick 1)
  --concurrency N     closed-loop callers = keep-alive connections (default 48)
  --repeats N         peak phases per server; median and min–max reported (default 3; --quick 1)
  --quick             short run for a smoke check
  --server W          both | dwell | floor (default both)
  --bodies N          distinct gzip bodies prepared up front (default 2000; grows if the rate outruns it)
  --seed N            workload seed (default 1)
  --open-fraction F   open-loop rate as a fraction of Dwell's peak (default 0.7)
  --open-repeats N    open-loop phases per Dwell, taking turns (default 1)
  --cpu-prof DIR      run the Dwell child with --cpu-prof, profiles written to DIR
  --json FILE         also write the results as JSON
  --no-doc            do not write the results into docs/performance.md
  --also-node PATH    also run Dwell under this node binary (repeatable); written as http-node-versions
  --baseline DIR      also run the Dwell built in checkout DIR (its dist/) beside this one; written as http-baseline
`;
}

const log = (line: string) => process.stderr.write(line + '\n');

// ---------------------------------------------------------------------------------------------
// Requests

const t0 = Date.now();
const bodies = new BodyPool((n) => prepareBody(structuredRequest(opts.seed, n)), opts.bodies);
log(`prepared ${bodies.size} distinct request bodies in ${Date.now() - t0} ms: 3 events × 10 fixes with Wi-Fi scans, ` +
  `mean ${(bodies.meanJsonBytes / 1024).toFixed(1)} KiB JSON → ${(bodies.meanGzipBytes / 1024).toFixed(1)} KiB gzip`);

// ---------------------------------------------------------------------------------------------
// Phases

interface Phase { name: string; result: LoadResult; cpu: CpuReport; threads: ThreadSplit }
interface ServerRun {
  server: 'dwell' | 'floor';
  /** Dwell's Node and HTTP server, as its log says (src/http/listen.ts). */
  runtime?: string;
  peaks: Phase[];
  /** The open-loop phase with the median p99 of its repeats, and every repeat's p99. */
  open?: Phase;
  openP99s?: number[];
  errors: ErrorSamples;
  smoke?: string;
}

function describe(p: Phase, pid: number | undefined): string {
  const r = p.result;
  const server = pid === undefined ? NaN : Object.values(p.cpu.processes)[0];
  return `${p.name}: ${fmtInt(r.rps)} req/s` + (r.targetRps ? ` (target ${fmtInt(r.targetRps)})` : '') +
    `, p50 ${fmtMs(r.latency.p50)} ms, p99 ${fmtMs(r.latency.p99)} ms, max ${fmtMs(r.latency.max)} ms, ` +
    `errors ${r.errors}${r.errors ? ' ' + JSON.stringify(r.errorsBy) : ''}; ` +
    `CPU cores: server ${server.toFixed(2)}, client ${p.cpu.self.toFixed(2)}, others ${p.cpu.others.toFixed(2)} of ${p.cpu.cores}`;
}

/** Detection worker threads of the Dwell child (its default is one per core); the floor has none. */
const dwellWorkers = Number(process.env.DWELL_WORKERS) || availableParallelism();

async function measure(name: string, svc: Service, run: () => Promise<LoadResult>): Promise<Phase> {
  const meter = cpuMeter({ [svc.name]: svc.proc.pid! });
  const threads = threadMeter(svc.proc.pid!);
  const result = await run();
  const phase = { name, result, cpu: meter.end(), threads: threads.end(svc.name === 'dwell' ? dwellWorkers : 0) };
  log(`[${svc.name}] ${describe(phase, svc.proc.pid)}; CPU ms/req by thread: ${threadSplit(phase)}`);
  return phase;
}

/** Server CPU ms per answered request: main thread, the busiest other threads (the detection workers), the rest. */
function threadMs(p: Phase): { main: number; workers: number; rest: number } {
  const n = p.result.ok + p.result.errors || 1;
  const t = p.threads;
  return { main: (t.main * 1000) / n, workers: (t.busiest.reduce((a, b) => a + b, 0) * 1000) / n, rest: (t.rest * 1000) / n };
}

function threadSplit(p: Phase): string {
  const m = threadMs(p);
  return `main ${m.main.toFixed(3)}` + (p.threads.busiest.length ? `, workers ${m.workers.toFixed(3)}` : '') + `, other threads ${m.rest.toFixed(3)}`;
}

/** A server started, its app created and its smoke request answered: ready to be driven. */
interface Started { server: 'dwell' | 'floor'; svc: Service; target: Target; runtime?: string; smoke: string; errors: ErrorSamples; stop(): Promise<void> }

/**
 * Warm-up, peaks and (for Dwell) the open loop. With several servers up at once (--also-node),
 * their peak phases take turns, so a change in the machine's other load falls on all of them
 * alike and their ratios hold; only one is ever under load.
 */
async function drive(servers: Started[]): Promise<ServerRun[]> {
  const pools = servers.map((s) => newPool(s.svc.url, opts.concurrency));
  try {
    const sends = servers.map((s, i) => makeSender(pools[i], s.target, bodies, s.errors));
    const closed = (i: number, ms: number) => () => closedLoop({ concurrency: opts.concurrency, durationMs: ms, send: sends[i] });
    if (opts.warmupS > 0) {
      for (const [i, { svc }] of servers.entries()) {
        log(`[${svc.name}] warm-up ${opts.warmupS} s at concurrency ${opts.concurrency}…`);
        await measure('warm-up', svc, closed(i, opts.warmupS * 1000));
      }
    }
    const peaks: Phase[][] = servers.map(() => []);
    for (let r = 1; r <= opts.repeats; r++) {
      for (const [i, { svc }] of servers.entries()) {
        log(`[${svc.name}] peak ${r}/${opts.repeats}: closed loop, ${opts.concurrency} callers, ${opts.durationS} s…`);
        peaks[i].push(await measure(`peak ${r}/${opts.repeats}`, svc, closed(i, opts.durationS * 1000)));
      }
    }
    for (const p of pools) await p.close();
    // Several Dwells are compared at one rate (the slowest one's fraction of its peak), their
    // open phases taking turns as the peaks do: a build is not asked for more because it is faster.
    const dwellAt = servers.flatMap((s, i) => (s.server === 'dwell' ? [i] : []));
    const common = dwellAt.length > 1 ? Math.min(...dwellAt.map((i) => median(peaks[i].map((p) => p.result.rps)))) : undefined;
    const opens: Phase[][] = servers.map(() => []);
    for (let r = 1; r <= opts.openRepeats; r++) {
      for (const i of dwellAt) {
        const o = await openPhase(servers[i], common ?? median(peaks[i].map((p) => p.result.rps)), r);
        if (o) opens[i].push(o);
      }
    }
    return servers.map((s, i) => {
      const byP99 = [...opens[i]].sort((a, b) => a.result.latency.p99 - b.result.latency.p99);
      const open = byP99[Math.floor((byP99.length - 1) / 2)];
      return { server: s.server, runtime: s.runtime, peaks: peaks[i], open, openP99s: opens[i].map((o) => o.result.latency.p99), errors: s.errors, smoke: s.smoke };
    });
  } finally {
    await Promise.all(pools.map((p) => p.destroy().catch(() => {})));
  }
}

async function openPhase({ svc, target, errors }: Started, peak: number, repeat: number): Promise<Phase | undefined> {
  const rate = opts.openFraction * peak;
  if (!(rate >= 1)) {
    log(`[${svc.name}] no open-loop phase: peak rate too low (${rate})`);
    return undefined;
  }
  const openPool = newPool(svc.url, Math.max(64, opts.concurrency * 2));
  try {
    const openSend = makeSender(openPool, target, bodies, errors);
    log(`[${svc.name}] open loop ${repeat}/${opts.openRepeats} at ${Math.round(opts.openFraction * 100)}% of peak: ${fmtInt(rate)} req/s for ${opts.durationS} s…`);
    // A short settle at the rate first, so the phase starts from a steady state, not from the peak's backlog.
    await openLoop({ rate, durationMs: Math.min(2000, opts.durationS * 500), send: openSend });
    return await measure(`open loop ${Math.round(opts.openFraction * 100)}%`, svc, () => openLoop({ rate, durationMs: opts.durationS * 1000, send: openSend }));
  } finally {
    await openPool.destroy().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Servers

async function startDwell(node = process.execPath, baseline?: string): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const unregister = atExit(removeDataDir);
  const adminToken = randomBytes(16).toString('hex');
  // Dwell logs its port at info; at warn it says nothing, so it is given a free port.
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DWELL_') && k !== 'PORT') env[k] = v;
  // Tunables an operator may want to vary from the shell; everything else is fixed here.
  for (const k of ['DWELL_WORKERS', 'DWELL_WORKER_TASKS', 'DWELL_VENUES', 'DWELL_MAX_QUEUE', 'DWELL_RECENT_COUNT']) if (process.env[k]) env[k] = process.env[k];
  Object.assign(env, {
    PORT: String(port),
    DWELL_HOST: '127.0.0.1',
    DWELL_DATA_DIR: dataDir,
    DWELL_ADMIN_TOKEN: adminToken,
    DWELL_LOG_LEVEL: 'warn',
  });
  const nodeArgs: string[] = [];
  if (opts.cpuProf) {
    mkdirSync(opts.cpuProf, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', opts.cpuProf);
  }
  log(`[dwell] starting ${path.relative(ROOT, DWELL_CLI)} serve on 127.0.0.1:${port} (workers: ${env.DWELL_WORKERS ?? 'default'})…`);
  const svc = await serveDwell({ node, nodeArgs, env, port, ...(baseline ? { cli: path.join(baseline, 'dist/src/cli.js'), name: 'dwell-baseline' } : {}) });
  const stop = async () => {
    const code = await svc.stop();
    const warnings = svc.logs.filter((l) => /"level":"(warn|error)"/.test(l));
    if (warnings.length) log(`[dwell] ${warnings.length} warn/error log lines, last: ${warnings.at(-1)}`);
    log(`[dwell] stopped (exit ${code})`);
    removeDataDir();
    unregister();
  };
  try {
    const t = Date.now();
    await waitFor200(svc.url + '/readyz', 90_000, svc.proc);
    const runtime = baseline ? `baseline: ${path.basename(baseline)}` : opts.baseline ? 'this build' : runtimeOf(svc.logs);
    log(`[dwell] ready in ${Date.now() - t} ms (pid ${svc.proc.pid}), ${runtime}`);
    const target = await createSyncApp(svc.url, adminToken);
    const smoke = await smokeTest(svc, target);
    return { server: 'dwell', svc, target, runtime, smoke, errors: new Map(), stop };
  } catch (err) {
    log(`[dwell] last log lines:\n${svc.logs.slice(-20).join('\n')}`);
    await stop();
    throw err;
  }
}

/** "Node 24.21.0, node:http", from Dwell's start-up log line. */
function runtimeOf(logs: string[]): string {
  for (const line of logs) {
    try {
      const e = JSON.parse(line);
      if (e.msg === 'http server') return `Node ${e.node}, ${e.implementation}`;
    } catch { /* not JSON */ }
  }
  return 'runtime not logged';
}

/** One signed request before the load, its answer checked and shown. */
async function smokeTest(svc: Service, target: Target): Promise<string> {
  const pool = newPool(svc.url, 1);
  try {
    const body = prepareBody(structuredRequest(opts.seed, 1_000_000_000));
    const res = await pool.request({ path: DETECT_PATH, method: 'POST', headers: signedHeaders(target, body), body: body.gz });
    const text = await res.body.text();
    let summary = `${res.statusCode}, ${text.length} bytes`;
    try {
      const json = JSON.parse(text);
      if (Array.isArray(json.data)) {
        const visits = json.data.map((d: any) => d?.visit ?? d);
        summary += `, ${visits.length} visits: ` + visits.map((v: any) => `${v?.event_type}: ${v?.place?.venue_info?.name ?? v?.place_id ?? 'no venue'}`).join(', ');
        if (!visits.some((v: any) => v?.place_id)) summary += ' (NOTE: no venue claimed, so the figures measure the no-venue path)';
      } else if (json.error) summary += `: ${json.error.code} ${json.error.message} ${json.error.path ?? ''}`;
    } catch { summary += ': ' + text.slice(0, 200); }
    log(`[${svc.name}] smoke request: ${summary}`);
    return summary;
  } finally {
    await pool.destroy().catch(() => {});
  }
}

async function startFloor(): Promise<Started> {
  const target = { appKey: 'floor-' + randomBytes(6).toString('hex'), secret: randomBytes(24).toString('hex') };
  log(`[floor] starting ${path.relative(ROOT, FLOOR)}…`);
  const svc = await spawnService({
    name: 'floor', command: process.execPath, args: [FLOOR],
    env: { ...process.env, PORT: '0', FLOOR_HOST: '127.0.0.1', FLOOR_APP_KEY: target.appKey, FLOOR_APP_SECRET: target.secret },
    startTimeoutMs: 15_000,
  });
  const stop = async () => {
    const code = await svc.stop();
    log(`[floor] stopped (exit ${code})`);
  };
  try {
    log(`[floor] listening on ${svc.url} (pid ${svc.proc.pid})`);
    return { server: 'floor', svc, target, smoke: await smokeTest(svc, target), errors: new Map(), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Each server alone, one after the other; with --also-node, all of them up at once, driven in turns. */
async function benchAll(): Promise<ServerRun[]> {
  const dwellStarts = [process.execPath, ...opts.alsoNode].map((n) => () => startDwell(n));
  if (opts.baseline) dwellStarts.push(() => startDwell(process.execPath, opts.baseline));
  const starts = opts.servers.flatMap((s) => s === 'floor' ? [() => startFloor()] : dwellStarts);
  const runs: ServerRun[] = [];
  if (!opts.alsoNode.length && !opts.baseline) {
    for (const start of starts) {
      const s = await start();
      try { runs.push(...await drive([s])); } finally { await s.stop(); }
    }
    return runs;
  }
  const started: Started[] = [];
  try {
    for (const start of starts) started.push(await start());
    return await drive(started);
  } finally {
    for (const s of started) await s.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

interface PeakFigures { rps: Spread; p50: number; p99: Spread; errors: number; serverCpu: number; split: string; clientCpu: number; others: number }

function peakFigures(run: ServerRun): PeakFigures {
  const ps = run.peaks;
  return {
    rps: spread(ps.map((p) => p.result.rps)),
    p50: median(ps.map((p) => p.result.latency.p50)),
    p99: spread(ps.map((p) => p.result.latency.p99)),
    errors: ps.reduce((a, p) => a + p.result.errors, 0),
    serverCpu: median(ps.map((p) => Object.values(p.cpu.processes)[0])),
    split: medianSplit(ps),
    clientCpu: median(ps.map((p) => p.cpu.self)),
    others: median(ps.map((p) => p.cpu.others)),
  };
}

/** Per-thread CPU ms/req of the phases, each part the median over the phases. */
function medianSplit(ps: Phase[]): string {
  const ms = ps.map(threadMs);
  const part = (k: 'main' | 'workers' | 'rest') => fmtMs(median(ms.map((m) => m[k])));
  return ps[0].threads.busiest.length ? `${part('main')} / ${part('workers')} / ${part('rest')}` : `${part('main')} / – / ${part('rest')}`;
}

/** CPU milliseconds the server spent per answered request: comparable even when the machine is shared. */
const cpuMsPerReq = (cores: number, rps: number) => (Number.isFinite(cores) && rps > 0 ? fmtMs((cores * 1000) / rps) : '–');

const range = (s: Spread, f: (n: number) => string) => (s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`);

function report(runs: ServerRun[]): string {
  const dwells = runs.filter((r) => r.server === 'dwell');
  // With Dwell under more than one Node, each of its rows names the runtime.
  const name = (run: ServerRun) => run.server === 'floor' ? 'Floor' : dwells.length > 1 ? `Dwell (${run.runtime})` : 'Dwell';
  const rows: string[][] = [];
  const figs = new Map<ServerRun, PeakFigures>();
  for (const run of runs) {
    const f = peakFigures(run);
    figs.set(run, f);
    rows.push([
      `${name(run)}, peak (closed loop)`,
      range(f.rps, fmtInt), fmtMs(f.p50), range(f.p99, fmtMs), String(f.errors),
      f.serverCpu.toFixed(2), cpuMsPerReq(f.serverCpu, f.rps.median), f.split, f.clientCpu.toFixed(2), f.others.toFixed(2),
    ]);
  }
  const ofPeak = `${Math.round(opts.openFraction * 100)}% of ${dwells.length > 1 ? 'the slowest Dwell\'s' : 'its'} peak`;
  for (const run of dwells) {
    const o = run.open;
    if (!o) continue;
    rows.push([
      `${name(run)}, ${ofPeak} (open loop, ${fmtInt(o.result.targetRps ?? NaN)} req/s asked${run.openP99s && run.openP99s.length > 1 ? `, ${run.openP99s.length} phases` : ''})`,
      fmtInt(o.result.rps), fmtMs(o.result.latency.p50), run.openP99s && run.openP99s.length > 1 ? range(spread(run.openP99s), fmtMs) : fmtMs(o.result.latency.p99), String(o.result.errors),
      Object.values(o.cpu.processes)[0].toFixed(2), cpuMsPerReq(Object.values(o.cpu.processes)[0], o.result.rps), medianSplit([o]), o.cpu.self.toFixed(2), o.cpu.others.toFixed(2),
    ]);
  }
  const out: string[] = [];
  out.push(markdownTable(
    ['server / phase', 'req/s (2xx), median (min–max)', 'p50 ms', 'p99 ms, median (min–max)', 'errors', 'server CPU', 'server CPU ms/req', 'of which main / workers / other threads', 'client CPU', 'other CPU'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  ));
  out.push('');

  const verdicts: string[][] = [];
  const floor = runs.find((r) => r.server === 'floor');
  for (const run of dwells) {
    const d = figs.get(run)!;
    const f = floor && figs.get(floor);
    if (f) {
      const ratio = d.rps.median / f.rps.median;
      const clean = d.errors === 0 && f.errors === 0;
      verdicts.push([
        `${name(run)} req/s ≥ ${TARGET_RATIO} × floor req/s (${STRETCH_RATIO} × the stretch)`,
        `${fmtInt(d.rps.median)} / ${fmtInt(f.rps.median)} = ${ratio.toFixed(2)}`,
        !clean ? 'FAIL (errors during the peak phases)' : ratio >= STRETCH_RATIO ? 'PASS (stretch too)' : ratio >= TARGET_RATIO ? 'PASS' : 'FAIL',
      ]);
      verdicts.push([
        `${name(run)} server CPU a request, against the floor's`,
        `${cpuMsPerReq(d.serverCpu, d.rps.median)} / ${cpuMsPerReq(f.serverCpu, f.rps.median)} ms = ${((d.serverCpu / d.rps.median) / (f.serverCpu / f.rps.median)).toFixed(1)} ×`,
        '(issue 29: ≤ the floor\'s + the detection + 0.1 ms; see "What a request costs")',
      ]);
    }
    if (run.open) {
      const r = run.open.result;
      const kept = r.rps >= 0.95 * (r.targetRps ?? 0);
      verdicts.push([
        `${name(run)} p99 ≤ ${TARGET_P99_MS} ms at ${ofPeak}`,
        `p99 ${fmtMs(r.latency.p99)} ms at ${fmtInt(r.rps)} req/s`,
        r.errors ? 'FAIL (errors)' : !kept ? 'FAIL (rate not sustained)' : r.latency.p99 <= TARGET_P99_MS ? 'PASS' : 'FAIL',
      ]);
    }
  }
  if (verdicts.length) {
    out.push(markdownTable(['target', 'measured', 'result'], verdicts));
    out.push('');
  }
  if (dwells.length > 1) {
    const [first, ...others] = dwells;
    const a = figs.get(first)!;
    out.push(markdownTable(['against ' + name(first), 'req/s', 'server CPU ms/req'], others.map((run) => {
      const b = figs.get(run)!;
      const cpuMs = (x: PeakFigures) => (x.serverCpu * 1000) / x.rps.median;
      return [name(run), `${(b.rps.median / a.rps.median).toFixed(2)} ×`, `${(cpuMs(b) / cpuMs(a)).toFixed(2)} ×`];
    })));
    out.push('');
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  out.push(`Setup: ${availableParallelism()} cores (${cpu}), Node ${process.version} for the load generator${floor ? ' and the floor' : ''}; load generator in one process on the same machine ` +
    `(undici Pool, ${opts.concurrency} keep-alive connections, closed loop); ${opts.repeats} × ${opts.durationS} s peak phases after ${opts.warmupS} s warm-up; ` +
    `open loop ${opts.durationS} s, latency from the scheduled send time. Bodies: ${bodies.size} distinct gzip structured requests ` +
    `(${(bodies.meanGzipBytes / 1024).toFixed(1)} KiB gzip, ${(bodies.meanJsonBytes / 1024).toFixed(1)} KiB JSON, 3 events × 10 fixes, Wi-Fi scans of 5–10), ` +
    `every request signed with a fresh timestamp and a unique signature. CPU columns: cores' worth used over the phase (server = the child process, ` +
    `all threads; other = the rest of the machine, e.g. other work running at the same time); server CPU ms/req = server CPU ÷ req/s; ` +
    `split by thread (/proc/<pid>/task): main = the event-loop thread, workers = the ${dwellWorkers} busiest other threads (the detection workers), ` +
    `other threads = the rest (GC helpers, libuv pool, delivery).`);
  for (const run of runs) {
    if (run.smoke) out.push(`${name(run)} smoke request: ${run.smoke}`);
    for (const [k, e] of run.errors) out.push(`${name(run)} errors ${k}: ${e.count} (first: ${e.example})`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  log(`bench:http — ${opts.servers.join(' then ')}; concurrency ${opts.concurrency}, warm-up ${opts.warmupS} s, ` +
    `${opts.repeats} × ${opts.durationS} s peak${opts.servers.includes('dwell') ? `, open loop at ${Math.round(opts.openFraction * 100)}%` : ''}`);
  const runs = await benchAll();
  if (bodies.grown) log(`(${bodies.grown} bodies were made during the run because the rate outran the prepared ${opts.bodies}; pool now ${bodies.size})`);
  const table = report(runs);
  process.stdout.write('\n' + table + '\n');
  writePerformanceSection(opts.alsoNode.length ? 'http-node-versions' : opts.baseline ? 'http-baseline' : 'http', table);
  if (opts.json) {
    const plain = runs.map((r) => ({ ...r, errors: Object.fromEntries(r.errors) }));
    writeFileSync(opts.json, JSON.stringify({ options: opts, runs: plain }, null, 2));
    log(`results written to ${opts.json}`);
  }
  if (opts.cpuProf) log(`Dwell CPU profiles (main thread and workers) in ${opts.cpuProf}`);
}

main().then(() => process.exit(0), (err) => {
  log(`bench:http failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  void killAll().then(() => process.exit(1));
});
