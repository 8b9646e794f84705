/**
 * What a request costs in instructions, by part: bench/http-task.js's whole-task stage (the
 * bench:http bodies, same seed, through the Piscina task function in one thread) under
 * `valgrind --tool=callgrind`. Instruction counts do not move with the machine's load, so a
 * change's effect can be measured on a busy machine (time cannot: perf's hardware counters are
 * not available here). Writes the table to docs/performance.md, section "instructions".
 *
 *   node dist/bench/instructions.js [--bodies N (60)] [--warmup N (5)] [--rounds N (1)] [--batch N] [--keep DIR] [--no-doc]
 *     (--batch N: the bodies in batches of N through the worker's batch entry, as the server runs them)
 *   node dist/bench/instructions.js --from DIR [--bodies, --warmup, --rounds as run]   (a kept run again:
 *     its dumps and the perf map copied beside them as perf.map)
 *
 * Node runs with --single-threaded (no concurrent compiler or GC threads: the same work every run,
 * all of it in the counted thread), --perf-basic-prof and --interpreted-frames-native-stack (so
 * V8's generated code has names). http-task reads process.cpuUsage() at the start and end of each
 * pass; valgrind's `--dump-before=uv_getrusage` cuts a dump there, so the measured passes (after
 * `--warmup` passes of the same bodies) are counted alone. A part is its entry functions'
 * inclusive count (lib/callgrind.ts); parts nest where the code does (the commit holds the learned
 * writes, the detection holds the commit), so the shares do not add up to 100 %.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDumps, inclusive, nameJit, readDump, readPerfMap, type CgDump } from './lib/callgrind.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({ batch: { type: 'string' }, bodies: { type: 'string' }, warmup: { type: 'string' }, rounds: { type: 'string' }, keep: { type: 'string' }, from: { type: 'string' }, 'no-doc': { type: 'boolean' }, 'with-compile': { type: 'boolean' } });
const bodies = numFlag('bodies', argv.bodies, 60, 10, 10_000);
const warmup = numFlag('warmup', argv.warmup, 5, 1, 100);
const rounds = numFlag('rounds', argv.rounds, 1, 1, 20);

/** A JS function of ours: V8's perf-map name is `JS:<tier mark>name file:///…/dist/<file>:line:col`. */
const js = (fn: string, file: string) => (name: string) => {
  const m = /^JS:[~^+*]?(\S*) \S*\/dist\/(\S+):\d+:\d+$/.exec(name);
  return !!m && m[2].startsWith(file) && (fn === '' || m[1] === fn);
};
const any = (...ms: Array<(n: string) => boolean>) => (n: string) => ms.some((m) => m(n));

/** The parts by their entry functions; indented ones are inside the one above. */
export const PARTS: Array<[string, (name: string) => boolean]> = [
  ['inflate (gunzip)', js('inflateSync', 'src/http/body.js')],
  ['parse (UTF-8 check, JSON.parse)', js('parseJson', 'src/http/json-body.js')],
  ['validate (TypeBox check, contract rules)', js('validateDetect', 'src/schemas/validate-detect.js')],
  ['read snapshot renewal', js('fresh', 'src/users/store.js')],
  // users/store.ts `modify`: the record's read, the detection run on it, then one write transaction.
  // In a batch (--batch): `prepare` (read and run) and the batch's one `commitAll`.
  ['user record read, detection and commit', any(js('modify', 'src/users/store.js'), js('teach', 'src/users/store.js'), js('prepare', 'src/users/store.js'), js('commitAll', 'src/users/store.js'))],
  ['  detection (structured: stays, evidence, ranking)', js('detectStructured', 'src/detect/structured.js')],
  ['    assessment of a stay (evidence, venues, ranking)', js('assess', 'src/detect/assess.js')],
  ['      ranking', js('rank', 'src/detect/rank.js')],
  ['      learned reads (places, pooled networks, beacons)', any(js('apPlaces', 'src/learned/'), js('pooledAps', 'src/learned/'), js('learnedBeacons', 'src/learned/'))],
  ['    learned priors (merge, read)', any(js('mergePriors', 'src/learned/'), js('mergeSparse', 'src/learned/'))],
  ['    answer items (visits built, addresses)', js('buildVisit', 'src/detect/')],
  ['  write transaction (encode, put, learned writes, commit)', js('teaching', 'src/learned/tables.js')],
  ['    learned writes', js('learn', 'src/learned/tables.js')],
  ['geofences', any(js('presenceStep', 'src/geofences/'), js('evaluate', 'src/geofences/'), js('evaluateAlone', 'src/geofences/'))],
  ['answer serialisation (JSON.stringify, UTF-8)', any(js('settle', 'src/pipeline/detect.js'), js('answered', 'src/pipeline/detect.js'))],
  ['GC (V8 collections, wherever they fall)', (n) => n.startsWith('v8::internal::Heap::CollectGarbage(')],
];
const TASK = any(js('detectionTask', 'src/pipeline/detect.js'), js('detectionBatch', 'src/pipeline/batch.js'));

const dir = path.resolve(argv.from ?? argv.keep ?? mkdtempSync(path.join(tmpdir(), 'dwell-instructions-')));
mkdirSync(dir, { recursive: true });
// A young generation of fixed size: V8 sizes it from wall-time speeds, which move under valgrind on a
// shared machine, and the number of scavenges in a short measured pass moved with it (7 and 18 for the
// same code and bodies, several points of bench:integrity-cost's share); fixed, one pass counts alike.
const nodeFlags = ['--single-threaded', '--interrupt-budget=16384', '--min-semi-space-size=16', '--max-semi-space-size=16', '--perf-basic-prof', '--interpreted-frames-native-stack'];
const task = [path.join(ROOT, 'dist/bench/http-task.js'), '--stage', '4', '--bodies', String(bodies), '--warmup', String(warmup), '--rounds', String(rounds), ...(argv.batch ? ['--batch', argv.batch] : [])];
// Callgrind stops counting inside V8's compilers (optimising and lazy): --single-threaded runs them in
// this thread, inside whichever part first ran hot code, and a short run under valgrind never reaches
// the JIT's steady state. Without them a pass counts the steady-state task, so one change's before and
// after compare on a run of minutes, not of 40. `--with-compile` counts them again (the table's compile row).
// One pattern only: a toggle nested in another matching one would switch counting back on.
// A toggle alone also turns counting off at start (callgrind's default then): on again with --collect-atstart.
const toggles = argv['with-compile'] ? [] : ['--toggle-collect=v8::internal::Runtime_Compile*', '--collect-atstart=yes'];
const args = ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--dump-before=uv_getrusage', ...toggles, process.execPath, ...nodeFlags, ...task];
let wallS = NaN;
if (!argv.from) {
  process.stderr.write(`[bench:instructions] valgrind ${args.map((a) => (path.isAbsolute(a) ? `<${path.basename(a)}>` : a)).join(' ')}\n`);
  const t0 = Date.now();
  // cwd: the run's directory, where V8's isolate-*.log (written with these flags) goes and is removed with it.
  const child = spawnSync('valgrind', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  wallS = (Date.now() - t0) / 1000;
  if (child.status !== 0) throw new Error(`valgrind exited ${child.status}: ${child.stderr.slice(-2000)}`);
  // Valgrind runs node in its own process: the perf map V8 wrote is /tmp/perf-<that pid>.map.
  const pid = /^==(\d+)==/m.exec(child.stderr)?.[1];
  if (!pid || !existsSync(`/tmp/perf-${pid}.map`)) throw new Error(`no perf map from the measured node process (pid ${pid})`);
  renameSync(`/tmp/perf-${pid}.map`, path.join(dir, 'perf.map'));
}
// Dumps: .1 start-up, then per pass its body (even numbers) and the gap to the next (odd).
const passes = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).map((f) => Number(f.split('.')[2])).sort((a, b) => a - b);
const measured = passes.filter((n) => n % 2 === 0).slice(warmup);
if (measured.length !== rounds) throw new Error(`expected ${rounds} measured dumps, found ${measured.length} (${passes.join(', ')})`);
const perfMap = readPerfMap(path.join(dir, 'perf.map'));
const warmDumps = passes.filter((n) => n % 2 === 0).slice(0, warmup).map((n) => readDump(path.join(dir, `cg.out.${n}`)).total / bodies);
const dump: CgDump = addDumps(measured.map((n) => readDump(path.join(dir, `cg.out.${n}`))));
nameJit(dump, perfMap);
if (!argv.keep && !argv.from) rmSync(dir, { recursive: true, force: true });

const requests = bodies * rounds;
const perReq = (ir: number) => ir / requests;
const ownFrame = inclusive(dump, TASK).ir;
// A function TurboFan inlined has no frame of its own: should the task function be inlined into the
// worker's entry, its count is the pass's (the bench loop around it is a few instructions a request).
const inlined = ownFrame < 0.5 * dump.total;
const task1 = inlined ? dump.total : ownFrame;
const k = (ir: number) => (perReq(ir) / 1000).toFixed(0);
const rows = PARTS.map(([part, m]) => {
  const { ir } = inclusive(dump, m);
  return [part.replace(/^( +)/, (s) => '\u00a0'.repeat(s.length * 2)), k(ir), `${((ir / task1) * 100).toFixed(1)} %`];
});
rows.push([inlined ? '**task in all** (the whole pass: the task function was inlined)' : '**task in all** (the Piscina task function)', k(task1), '100 %']);
// --single-threaded: TurboFan compiles in this thread, inside whichever part called the function it optimises.
const jit = inclusive(dump, (n) => n.startsWith('v8::internal::Runtime_CompileOptimized')).ir;
rows.push(['of which JIT compilation (TurboFan, counted inside the parts above)', k(jit), `${((jit / task1) * 100).toFixed(1)} %`]);
rows.push(['**task without JIT compilation** (steady state)', k(task1 - jit), `${(((task1 - jit) / task1) * 100).toFixed(1)} %`]);
rows.push(['the whole pass (task + the bench loop)', k(dump.total), `${((dump.total / task1) * 100).toFixed(1)} %`]);
const table = markdownTable(['part (entry functions\' inclusive count)', 'k instructions a request', 'share of the task'], rows, ['left', 'right', 'right']);

// Where the instructions are spent in the end: the functions with the most of their own.
const selfTop = [...dump.fns.values()].sort((a, b) => b.self - a.self).slice(0, 15).map((f) => {
  const m = /^JS:([~^+*]?)(\S*) \S*\/(?:dist|node_modules)\/(\S+)$/.exec(f.name);
  const name = m ? `${m[2] || '(anonymous)'} ${m[3]} ${({ '~': '(interpreted)', '^': '(baseline)', '*': '', '+': '(maglev)' } as Record<string, string>)[m[1]] ?? ''}` : f.name.replace(/\(.*$/s, '');
  return [name.trim().replace(/\|/g, '\\|'), k(f.self), `${((f.self / dump.total) * 100).toFixed(1)} %`];
});
const top = markdownTable(['function (own instructions only)', 'k instructions a request', 'share of the pass'], selfTop, ['left', 'right', 'right']);

const md = `The worker's task on the bench:http bodies (${bodies} bodies${argv.batch ? ` in batches of ${argv.batch}` : ''}, seed 1, Monaco store, one thread) under callgrind: ` +
  `${warmup} warm-up passes (k instructions a request: ${warmDumps.map((x) => (x / 1000).toFixed(0)).join(', ')}), then ${rounds} measured. ` +
  `Instructions, not time: the count of a pass is the same on a busy machine. Shares are of the task function's inclusive count; ` +
  `indented parts are inside the one above (the commit's transaction holds the learned writes).\n\n${table}\n\n${top}\n\n` +
  (Number.isFinite(wallS) ? `Under valgrind the run took ${wallS.toFixed(0)} s of wall time.` : '');
console.log(md);
writePerformanceSection('instructions', md);
