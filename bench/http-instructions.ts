/**
 * What a request costs the whole server in instructions, over HTTP: `dwell serve` under valgrind
 * (callgrind, every thread of the process counted: the HTTP thread, the detection workers,
 * lmdb-js's writer, V8's helpers), driven from outside by a closed loop of signed bench:http
 * bodies. After `--warmup` requests the counters are zeroed (callgrind_control), then `--requests`
 * more are sent at each `--concurrency` in turn and each phase's count is dumped: instructions a
 * request, which do not move with the machine's load the way bench:http's CPU time does (the
 * machine is shared). Under valgrind the server is far slower than its client, so a high
 * concurrency is a saturated server (the peak: requests wait and batches fill) and a concurrency
 * of 1 a server at part load (every request alone).
 *
 *   node dist/bench/http-instructions.js [--requests N (300)] [--warmup N (800)] [--concurrency 1,32]
 *                                        [--baseline DIR] [--no-doc] [--keep DIR [--names]]
 *
 * `--baseline DIR`: the Dwell built in another checkout (DIR/dist) measured the same way, in the
 * same run, beside this build. Writes docs/performance.md, section "http-instructions".
 *
 * `--keep DIR`: every phase's dumps kept in DIR/<build>-c<concurrency>/, one file a thread
 * (callgrind --separate-threads=yes: the same counts, split), to find which thread a difference is
 * in (callgrind_annotate, or bench/lib/callgrind.ts). `--names` adds --perf-basic-prof (the perf map
 * is kept beside the dumps) so V8's generated code can be named; it costs every build the perf
 * map's writes, so its figures are for comparing within a run, not for the doc (not written).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor200 } from '../src/devkit/child.js';
import { serveDwell } from '../src/devkit/dwell-serve.js';
import { readDump } from './lib/callgrind.js';
import { structuredRequest } from './lib/detect-requests.js';
import { BodyPool, prepareBody } from './lib/signing.js';
import { Pool } from 'undici';
import { createSyncApp, makeSender, type ErrorSamples } from './lib/detect-sender.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({ requests: { type: 'string' }, warmup: { type: 'string' }, concurrency: { type: 'string', default: '1,32' }, baseline: { type: 'string' }, 'no-doc': { type: 'boolean' }, keep: { type: 'string' }, names: { type: 'boolean' } });
const requests = numFlag('requests', argv.requests, 300, 10, 100_000);
const warmup = numFlag('warmup', argv.warmup, 800, 0, 100_000);
const concurrencies = argv.concurrency!.split(',').map(Number);
const bodies = new BodyPool((n) => prepareBody(structuredRequest(1, n)), 2000);
const keep = argv.keep ? path.resolve(argv.keep) : undefined;
const log = (s: string) => process.stderr.write(`[bench:http-instructions] ${s}\n`);

interface Build { name: string; root: string }
const builds: Build[] = [{ name: 'this build', root: ROOT }];
if (argv.baseline) builds.push({ name: `baseline (${path.basename(path.resolve(argv.baseline))})`, root: path.resolve(argv.baseline) });

/**
 * V8's optimizing compiler (TurboFan, on its helper threads): after the short warm-up it still
 * compiles through the counted phases, 2.0-2.6 M instructions a request in either build, and how
 * much falls in a phase varies from run to run by several hundred k (issue 44), so each figure is
 * also given without it.
 */
const COMPILER = /^v8::internal::compiler::|OptimizedCompilationJob|TurbofanCompilationJob/;

interface Count { all: number; outsideCompiler: number }

/** k instructions a request at each concurrency, for one build. */
async function measure(b: Build): Promise<Count[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-http-instr-'));
  const dataDir = path.join(dir, 'data'), out = path.join(dir, 'cg.out');
  const port = await freePort(), token = randomBytes(16).toString('hex');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DWELL_') && k !== 'PORT') env[k] = v;
  Object.assign(env, { PORT: String(port), DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: dataDir, DWELL_ADMIN_TOKEN: token, DWELL_LOG_LEVEL: 'warn', DWELL_WORKERS: '2', DWELL_WARM_UP: 'off' });
  const vgArgs = ['--tool=callgrind', `--callgrind-out-file=${out}`, ...(keep ? ['--separate-threads=yes'] : [])];
  const nodeArgs = argv.names ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : [];
  const svc = await serveDwell({ node: 'valgrind', nodeArgs: [...vgArgs, process.execPath, ...nodeArgs], cli: path.join(b.root, 'dist/src/cli.js'), env, port, name: b.name, startTimeoutMs: 600_000 });
  const pid = svc.proc.pid!;
  const ctl = (...args: string[]) => {
    const r = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${r.stderr}`);
  };
  try {
    await waitFor200(`${svc.url}/readyz`, 600_000, svc.proc);
    const target = await createSyncApp(svc.url, token);
    const errors: ErrorSamples = new Map();
    const run = async (n: number, concurrency: number) => {
      // No timeouts: under valgrind a request can take seconds while its neighbours' code compiles.
      const pool = new Pool(svc.url, { connections: concurrency, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
      const send = makeSender(pool, target, bodies, errors);
      let next = 0;
      await Promise.all(Array.from({ length: concurrency }, async () => { while (next < n) { next++; await send(); } }));
      await pool.close();
    };
    log(`${b.name}: warm-up, ${warmup} requests at concurrency 8…`);
    await run(warmup, 8);
    const perReq: Count[] = [];
    for (const c of concurrencies) {
      ctl('--zero');
      const t0 = Date.now();
      await run(requests, c);
      ctl('--dump');
      // This phase's dump: one file, or one a thread (--keep); the earlier phases' were removed.
      const files = readdirSync(dir).filter((f) => /^cg\.out\.\d/.test(f)).map((f) => path.join(dir, f));
      let all = 0, compiler = 0;
      for (const f of files) {
        const d = readDump(f);
        all += d.total;
        for (const fn of d.fns.values()) if (COMPILER.test(fn.name)) compiler += fn.self;
      }
      perReq.push({ all: all / requests / 1000, outsideCompiler: (all - compiler) / requests / 1000 });
      if (keep) {
        const to = path.join(keep, `${b.name.replace(/\W+/g, '-').replace(/^-|-$/g, '')}-c${c}`);
        mkdirSync(to, { recursive: true });
        for (const f of files) copyFileSync(f, path.join(to, path.basename(f)));
        if (argv.names && existsSync(`/tmp/perf-${pid}.map`)) copyFileSync(`/tmp/perf-${pid}.map`, path.join(to, 'perf.map'));
      }
      for (const f of files) rmSync(f);
      log(`${b.name}: concurrency ${c}: ${perReq.at(-1)!.all.toFixed(0)} k instructions a request, ${perReq.at(-1)!.outsideCompiler.toFixed(0)} k outside the optimizing compiler (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
    if (errors.size) log(`${b.name}: errors ${JSON.stringify([...errors])}`);
    return perReq;
  } finally {
    await svc.stop();
    if (argv.names) rmSync(`/tmp/perf-${pid}.map`, { force: true });
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

const results = await Promise.all(builds.map(measure));
const both = (x: Count) => `${x.all.toFixed(0)} (${x.outsideCompiler.toFixed(0)})`;
const ratio = (a: Count, b: Count) => `${(a.all / b.all).toFixed(3)} (${(a.outsideCompiler / b.outsideCompiler).toFixed(3)})`;
const rows = concurrencies.map((c, i) => [`${c} in flight${c === 1 ? ' (every request alone)' : ' (saturated: requests wait)'}`, ...results.map((r) => both(r[i])), ...(results.length > 1 ? [ratio(results[0][i], results[1][i])] : [])]);
const table = markdownTable(['closed loop', ...builds.map((b) => `${b.name}, k instructions a request (outside the optimizing compiler)`), ...(results.length > 1 ? ['this / baseline'] : [])], rows, ['left', ...builds.map(() => 'right' as const), ...(results.length > 1 ? ['right' as const] : [])]);
const md = `The whole \`dwell serve\` process under callgrind (every thread), 2 workers, warm-up off then ${warmup} requests before counting; ${requests} bench:http bodies (seed 1) a phase, signed and sent over HTTP from outside valgrind. Instructions a request, all threads, and in brackets without V8's optimizing compiler (its helper threads still compile after the warm-up, 2.0-2.6 M a request in either build, and how much of it falls in a phase varies between runs); the builds ran side by side.\n\n${table}`;
console.log(md);
if (!argv['no-doc'] && !argv.names) writePerformanceSection('http-instructions', md);
process.exit(0);
