/**
 * `npm run bench:soak`: latency and memory under a steady rate for minutes, with new users all
 * the time (issue 21). `bench:http` runs seconds on a fresh process; this sees the first minute
 * (cold caches and pages, a node that just joined) and what follows once caches fill.
 *
 *   node dist/bench/soak.js [--rate N | --peak-fraction F] [--minutes M] [--floor-minutes M]
 *        [--requests DIR] [--server both|dwell|floor] [--connections N] [--label NAME] [--json FILE] [--no-doc]
 *
 * Requests: the vdsim New York structured set (bench/lib/soak-requests.ts), each pass under new
 * user ids, sent open-loop (latency from each request's scheduled time) and signed per request.
 * Dwell runs as its own process (NYC venues imported, sync app, `--trace-gc`); the load starts as
 * soon as /readyz answers 200, so the first minute is part of the figure. Then the floor server
 * (bench/floor-server.ts) under the same generator and rate: the control for the client tail.
 * Per minute: client p50/p99/max, Dwell's own histogram share over 50 ms (/metrics), RssAnon and
 * RssFile, GC pause time per thread, detections each worker took (dwell_detect_worker_tasks);
 * the first minute also in 10 s slices, and Dwell's warm-up log line (it runs at log level info). `--peak-fraction F` first measures Dwell's peak on this mix
 * (a separate fresh process, closed loop) and runs at F × that.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { runImport } from '../src/venues/import/build.js';
import { signature } from '../src/signing.js';
import { atExit, freePort, spawnService, waitFor200, type Service } from '../src/devkit/child.js';
import { serveDwell } from '../src/devkit/dwell-serve.js';
import { closedLoop, openLoop, type Send } from './lib/load.js';
import { FreshUserBodies, loadRequestSet } from './lib/soak-requests.js';
import { GcLedger, parseGcLine } from './lib/gc-trace.js';
import { MinuteRecorder } from './lib/soak-minutes.js';
import { markdown, verdicts, type SoakRun } from './lib/soak-report.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { DwellAdmin } from '../src/client/index.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DETECT = '/v1/detect';
const say = (line: string) => process.stderr.write(line + '\n');

const argv = readFlags({
  rate: { type: 'string' }, 'peak-fraction': { type: 'string' }, 'peak-seconds': { type: 'string', default: '20' },
  minutes: { type: 'string', default: '10' }, 'floor-minutes': { type: 'string' },
  requests: { type: 'string' }, server: { type: 'string', default: 'both' }, connections: { type: 'string', default: '128' },
  label: { type: 'string' }, 'gc-log': { type: 'string' }, 'node-args': { type: 'string' }, json: { type: 'string' }, 'no-doc': { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
});
if (argv.help) {
  say('usage: node dist/bench/soak.js [--rate N (default 300) | --peak-fraction F] [--minutes M (default 10)] [--floor-minutes M (default: --minutes)]\n' +
    '  [--peak-seconds S (default 20)] [--requests DIR (a vdsim output)] [--server both|dwell|floor] [--connections N (default 128)]\n' +
    '  [--label NAME (the doc section: soak-NAME)] [--json FILE] [--no-doc]\n' +
    '  [--gc-log FILE (Dwell\'s --trace-gc lines)] [--node-args="ARGS" (more Node options for Dwell, e.g. --node-args="--cpu-prof --cpu-prof-dir=DIR"; the = is needed, as the value starts with a dash)]\n' +
    'Dwell settings from the shell: DWELL_WORKERS, DWELL_WORKER_TASKS, DWELL_MAX_QUEUE, DWELL_CACHE_MB.');
  process.exit(0);
}
const num = (name: string, raw: string | undefined, min: number, max: number): number => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) { say(`--${name}: expected ${min} to ${max}, got ${JSON.stringify(raw)}`); process.exit(2); }
  return n;
};
const minutes = Math.round(num('minutes', argv.minutes, 1, 600));
const floorMinutes = Math.round(num('floor-minutes', argv['floor-minutes'] ?? String(minutes), 1, 600));
const peakFraction = argv['peak-fraction'] === undefined ? undefined : num('peak-fraction', argv['peak-fraction'], 0.01, 2);
const connections = Math.round(num('connections', argv.connections, 1, 4096));
const servers = argv.server === 'both' ? ['dwell', 'floor'] : [argv.server];

interface Target { appKey: string; secret: string }

function newPool(url: string): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000, connectTimeout: 5_000 });
}

function sender(pool: Pool, target: Target, bodies: FreshUserBodies, errors: Record<string, number>): Send {
  return async () => {
    const body = bodies.next();
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await pool.request({
      path: DETECT, method: 'POST', body: body.gz,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-app-key': target.appKey, 'x-timestamp': ts,
        'x-signature': signature(target.secret, ts, 'POST', DETECT, body.sha256) },
    }).catch((err: Error) => { const k = `transport ${(err as NodeJS.ErrnoException).code ?? err.name}`; errors[k] = (errors[k] ?? 0) + 1; return null; });
    if (!res) return 0;
    if (res.statusCode === 200) await res.body.dump();
    else {
      const text = await res.body.text().catch(() => '');
      const k = `${res.statusCode} ${text.slice(0, 80)}`;
      if ((errors[k] = (errors[k] ?? 0) + 1) === 1) say(`first ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    return res.statusCode;
  };
}

/** Starts Dwell on a fresh data dir with --trace-gc; answers it, its app, and when it became ready. */
async function startDwell(store: string | undefined, gc: GcLedger): Promise<{ svc: Service; target: Target; readyMs: number; adminToken: string; cleanup: () => void }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dwell-soak-'));
  const unregister = atExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const adminToken = randomBytes(16).toString('hex');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DWELL_') && k !== 'PORT') env[k] = v;
  for (const k of ['DWELL_WORKERS', 'DWELL_WORKER_TASKS', 'DWELL_MAX_QUEUE', 'DWELL_CACHE_MB']) if (process.env[k]) env[k] = process.env[k];
  Object.assign(env, { PORT: String(port), DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: dataDir, DWELL_ADMIN_TOKEN: adminToken, DWELL_LOG_LEVEL: 'info', DWELL_RATE_LIMIT: '0' });
  if (store) env.DWELL_VENUES = store;
  const t0 = Date.now();
  const svc = await serveDwell({
    nodeArgs: ['--trace-gc', ...(argv['node-args']?.split(/\s+/).filter(Boolean) ?? [])],
    env, port,
    onLine: (line, at) => {
      const e = line.startsWith('[') ? parseGcLine(line) : null;
      if (!e) return;
      gc.add(e, at);
      if (argv['gc-log']) appendFileSync(argv['gc-log'], `${at} ${line}\n`);
    },
  });
  await waitFor200(svc.url + '/readyz', 120_000, svc.proc);
  const readyMs = Date.now() - t0;
  const app = await new DwellAdmin({ url: svc.url, token: adminToken }).createApp({ name: 'soak', delivery: { method: 'sync' } });
  say(`[dwell] pid ${svc.proc.pid}, ready ${readyMs} ms after start (${svc.url})`);
  // What the workers' warm-up did (server/pool.ts logs it at info or, capped, at warn).
  const warmUp = svc.logs.find((l) => /"msg":"detection workers warm/.test(l));
  if (warmUp) say(`[dwell] ${warmUp}`);
  return { svc, target: { appKey: app.app_key, secret: app.app_secret }, readyMs, adminToken, cleanup: () => { rmSync(dataDir, { recursive: true, force: true }); unregister(); } };
}

async function startFloor(): Promise<{ svc: Service; target: Target }> {
  const target = { appKey: 'floor-' + randomBytes(6).toString('hex'), secret: randomBytes(24).toString('hex') };
  const svc = await spawnService({
    name: 'floor', command: process.execPath, args: [path.join(ROOT, 'dist/bench/floor-server.js')],
    env: { ...process.env, PORT: '0', FLOOR_HOST: '127.0.0.1', FLOOR_APP_KEY: target.appKey, FLOOR_APP_SECRET: target.secret }, startTimeoutMs: 15_000,
  });
  say(`[floor] pid ${svc.proc.pid} on ${svc.url}`);
  return { svc, target };
}

/** The open loop at `rate` for `mins` minutes, closed minute by minute; progress every 15 s. */
async function soak(label: string, svc: Service, target: Target, bodies: FreshUserBodies, rate: number, mins: number, rec: MinuteRecorder, errors: Record<string, number>) {
  const pool = newPool(svc.url);
  try {
    const start = performance.now() + 2; // openLoop's own start
    await rec.begin(start);
    let closing = Promise.resolve();
    let m = 0, sliced = 0;
    const tick = setInterval(() => {
      const elapsed = performance.now() - start;
      while (elapsed >= (m + 1) * 60_000 && m < mins) { const k = m++; closing = closing.then(() => rec.close(k).then(() => {})); }
      const sec = Math.floor(elapsed / 1000);
      if (sec > 0 && sec <= 60 && sec % 10 === 0 && sec !== sliced) { sliced = sec; closing = closing.then(() => rec.slice(sec)); }
      if (m < mins && Math.floor(elapsed / 1000) % 15 === 0) {
        const p = rec.partial(m);
        say(`[${label}] ${Math.floor(elapsed / 60_000)}:${String(Math.floor(elapsed / 1000) % 60).padStart(2, '0')} minute ${m + 1} so far: ${p.count} answered, p50 ${p.p50?.toFixed(1)} ms, p99 ${p.p99?.toFixed(0)} ms; loop ${bodies.loop}`);
      }
    }, 1000);
    const result = await openLoop({ rate, durationMs: mins * 60_000, send: sender(pool, target, bodies, errors), observe: rec.observe, maxInFlight: 20_000, drainMs: 30_000 });
    clearInterval(tick);
    while (m < mins) { const k = m++; closing = closing.then(() => rec.close(k).then(() => {})); }
    await closing;
    say(`[${label}] done: ${result.ok} ok of ${result.sent}, ${result.rps.toFixed(0)} req/s, p99 ${result.latency.p99.toFixed(0)} ms; errors ${JSON.stringify(result.errorsBy)}`);
    return rec.finish();
  } finally {
    await pool.destroy().catch(() => {});
  }
}

async function main(): Promise<void> {
  const set = loadRequestSet(argv.requests, say);
  const t = Date.now();
  const bodies = new FreshUserBodies(set.bodies);
  say(`prepared ${bodies.size} bodies (${set.name}) in ${Date.now() - t} ms`);
  let store: string | undefined;
  const tmp = mkdtempSync(path.join(tmpdir(), 'dwell-soak-venues-'));
  atExit(() => rmSync(tmp, { recursive: true, force: true }));
  if (set.venuesFile) {
    store = path.join(tmp, 'venues');
    const r = await runImport({ format: 'jsonl', file: set.venuesFile, out: store, quiet: true });
    say(`imported ${r.venues} venues in ${r.seconds} s`);
  }
  let rate = argv.rate ? num('rate', argv.rate, 1, 100_000) : 300;
  let rateNote = `${rate} req/s`;
  if (peakFraction !== undefined) {
    const { svc, target, cleanup } = await startDwell(store, new GcLedger());
    const pool = newPool(svc.url);
    const errors: Record<string, number> = {};
    const send = sender(pool, target, bodies, errors);
    const secs = num('peak-seconds', argv['peak-seconds'], 5, 600);
    await closedLoop({ concurrency: 48, durationMs: 5000, send });
    const peak = await closedLoop({ concurrency: 48, durationMs: secs * 1000, send });
    await pool.destroy();
    await svc.stop();
    cleanup();
    rate = Math.max(1, Math.round(peakFraction * peak.rps));
    rateNote = `${Math.round(peakFraction * 100)} % of Dwell's peak on this mix (${peak.rps.toFixed(0)} req/s closed loop, 48 callers, ${secs} s, p99 ${peak.latency.p99.toFixed(0)} ms, on a separate fresh process): ${rate} req/s`;
    say(`[peak] ${rateNote}; errors ${JSON.stringify(errors)}`);
  }
  const label = argv.label ?? (peakFraction !== undefined ? `${Math.round(peakFraction * 100)}pct` : `${rate}rps`);
  const run: SoakRun = { label: `soak-${label}`, rate, rateNote, minutes, requests: set.note, loadStart: loadavg()[0], loadEnd: NaN };
  say(`[soak] ${rateNote} for ${minutes} min; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  if (servers.includes('dwell')) {
    const gc = new GcLedger();
    const { svc, target, readyMs, adminToken, cleanup } = await startDwell(store, gc);
    const errors: Record<string, number> = {};
    try {
      const rec = new MinuteRecorder({ pid: svc.proc.pid!, metricsUrl: svc.url, metricsToken: adminToken, route: DETECT, boundS: 0.05, gc, say, label: 'dwell' });
      const ms = await soak('dwell', svc, target, bodies, rate, minutes, rec, errors);
      run.dwell = { minutes: ms, readyMs, errors, cacheMb: process.env.DWELL_CACHE_MB ? `DWELL_CACHE_MB=${process.env.DWELL_CACHE_MB}` : 'default' };
      const warn = svc.logs.filter((l) => /"level":"(warn|error)"/.test(l));
      if (warn.length) say(`[dwell] ${warn.length} warn/error lines, last: ${warn.at(-1)}`);
    } finally {
      await svc.stop();
      cleanup();
    }
  }
  if (servers.includes('floor')) {
    const { svc, target } = await startFloor();
    try {
      const rec = new MinuteRecorder({ pid: svc.proc.pid!, route: DETECT, boundS: 0.05, say, label: 'floor' });
      run.floor = { minutes: await soak('floor', svc, target, bodies, rate, floorMinutes, rec, {}) };
    } finally {
      await svc.stop();
    }
  }
  run.loadEnd = loadavg()[0];
  for (const v of verdicts(run)) say(`[soak] ${v.met === null ? '?' : v.met ? 'MET' : 'NOT MET'}: ${v.line}`);
  const md = markdown(run);
  process.stdout.write(md + '\n');
  if (argv.json) writeFileSync(path.resolve(argv.json), JSON.stringify(run, null, 1));
  writePerformanceSection(run.label, md);
}

main().catch((err) => { say(String(err?.stack ?? err)); process.exit(1); });
