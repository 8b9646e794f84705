/**
 * What contract §12's checks cost a detection request (issue 43: at most 3 % of its CPU), in
 * instructions (callgrind, as bench:instructions counts them: the same on a busy machine):
 *
 *   npm run bench:integrity-cost -- --without DIR2 [--bodies 30] [--warmup 6] [--rounds 2]
 *     [--venues V.jsonl.gz --requests SET_DIR [--limit 300] [--passes 3]] [--keep DIR [--reuse]] [--no-doc]
 *
 * bench:instructions runs twice: in this checkout, and in DIR2, a copy of it whose `checkSignals`
 * (src/integrity/check.ts) returns at once with no flags, built with `npx tsc -p .`. The share is
 * (with − without) / with of the task's instructions a request: everything the checks add,
 * inlined or not, their garbage included, less what they save detection (a learned place the
 * checks read is in the thread's cache when detection asks). Beside it, from this build's dump,
 * the inclusive count of src/integrity/'s functions (where their instructions go; a function V8
 * inlined into detection is counted there instead).
 *
 * bench:http's bodies are the hard case for the checks: every transit scan hears networks never
 * seen before, each one a read of the learned tables that finds nothing. With --venues and
 * --requests the same comparison runs on vdsim traffic too (integrity-task.ts: the first --limit
 * requests of the set, --passes passes under new user ids, the first left out as warm-up).
 * --keep DIR keeps each run's dumps and perf map (DIR/{with,without}-{http,vdsim}) to be read by
 * function afterwards (lib/callgrind.ts): where a difference between the builds lies. With
 * --reuse, a kept run of DIR2 is read again instead of run (the stub does not change while this
 * checkout does: half the time of a before/after measure). Both runs fix V8's young generation
 * (16 MiB semi-spaces): a stubbed copy must hold this bench too, or its run differs in that.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDumps, inclusive, nameJit, readDump, readPerfMap, type CgDump } from './lib/callgrind.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { benchFlags, die } from '../src/devkit/flags.js';
import { runImport } from '../src/venues/import/build.js';

const USAGE = 'npm run bench:integrity-cost -- --without DIR2 [--bodies 30] [--warmup 6] [--rounds 2] [--keep DIR [--reuse]] [--no-doc]';
const flag = benchFlags({ without: 'string', bodies: 'string', warmup: 'string', rounds: 'string', venues: 'string', requests: 'string', limit: 'string', passes: 'string', keep: 'string', reuse: 'boolean', 'no-doc': 'boolean' }, USAGE);
const say = (s: string) => process.stderr.write(`[bench:integrity-cost] ${s}\n`);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const without = flag.str('without', '');
if (!without) die(`usage: ${USAGE}`);
const bodies = flag.num('bodies', 30), warmup = flag.num('warmup', 6), rounds = flag.num('rounds', 2);
const keep = flag.has('keep') ? path.resolve(flag.str('keep', '')) : undefined;
/** A kept, complete run of this label to read again (--reuse: the stub's only). */
const reused = (label: string) => !!keep && flag.has('reuse') && label.startsWith('without-') && existsSync(path.join(keep, label, 'perf.map'));
/** A run's directory: under --keep, kept by its label; else a temporary one. */
const runDir = (label: string) => {
  if (!keep) return mkdtempSync(path.join(tmpdir(), 'dwell-integrity-cost-'));
  if (reused(label)) { say(`reading the kept run ${path.join(keep, label)}`); return path.join(keep, label); }
  const d = path.join(keep, label);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
};

/** bench:instructions of the checkout at `root`, its dumps kept: the measured passes added up, JIT code named. */
function measure(root: string, label: string): CgDump {
  const dir = runDir(label);
  try {
    if (!reused(label)) {
      say(`bench:instructions in ${root}`);
      const r = spawnSync(process.execPath, [path.join(root, 'dist/bench/instructions.js'), '--bodies', String(bodies), '--warmup', String(warmup), '--rounds', String(rounds), '--keep', dir, '--no-doc'],
        { cwd: root, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
      if (r.status !== 0) throw new Error(`bench:instructions in ${root} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    }
    const passes = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).map((f) => Number(f.split('.')[2])).filter((n) => n % 2 === 0).sort((a, b) => a - b);
    const dump = addDumps(passes.slice(warmup).map((n) => readDump(path.join(dir, `cg.out.${n}`))));
    nameJit(dump, readPerfMap(path.join(dir, 'perf.map')));
    return dump;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** The driver (integrity-task.ts) of the checkout at `root` under callgrind as bench:instructions runs it: the measured passes added up. */
function measureVdsim(root: string, label: string, store: string, set: string, limit: number, passes: number): CgDump {
  const dir = runDir(label);
  try {
    if (!reused(label)) {
      say(`integrity-task in ${root} (${limit} requests, ${passes} passes)`);
      const args = ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--dump-before=uv_getrusage', '--toggle-collect=v8::internal::Runtime_Compile*', '--collect-atstart=yes',
        // Fixed hash and random seeds: Map layouts and Math.random the same in both builds' runs.
        // A young generation of fixed size, as bench:instructions': its scavenges then fall alike in both builds' passes.
      process.execPath, '--single-threaded', '--expose-gc', '--interrupt-budget=16384', '--min-semi-space-size=16', '--max-semi-space-size=16', '--hash-seed=1', '--random-seed=1', '--perf-basic-prof', '--interpreted-frames-native-stack',
        path.join(ROOT, 'dist/bench/integrity-task.js'), '--root', root, '--venues', store, '--requests', set, '--limit', String(limit), '--passes', String(passes)];
      const r = spawnSync('valgrind', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
      if (r.status !== 0) throw new Error(`valgrind exited ${r.status}: ${r.stderr.slice(-2000)}`);
      const pid = /^==(\d+)==/m.exec(r.stderr)?.[1];
      if (!pid || !existsSync(`/tmp/perf-${pid}.map`)) throw new Error(`no perf map from the measured node process (pid ${pid})`);
      renameSync(`/tmp/perf-${pid}.map`, path.join(dir, 'perf.map'));
    }
    const dumps = readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).map((f) => Number(f.split('.')[2])).filter((n) => n % 2 === 0).sort((a, b) => a - b);
    const dump = addDumps(dumps.slice(1).map((n) => readDump(path.join(dir, `cg.out.${n}`))));
    nameJit(dump, readPerfMap(path.join(dir, 'perf.map')));
    return dump;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** V8's collector by callgrind's function names (as bench/place-triggers.ts): marking, sweeping, scavenging, evacuation, write barriers. */
const GC = /^(?:void |bool |heap::base::SlotCallbackResult )?(?:heap::base::|Builtins_RecordWrite|v8::internal::(?:\w*(?:Marking|MarkCompact|MarkBit|Sweep|Scaveng|Evacuat|Heap::|WriteBarrier|LiveObject|RememberedSet|SlotSet|Compactor)|HeapObject::SizeFromMap|BodyDescriptorBase::IteratePointers|Heap))/;
/** A dump's instructions outside V8's collector. */
function mutator(d: CgDump): number {
  let gc = 0;
  for (const f of d.fns.values()) if (GC.test(f.name)) gc += f.self;
  return d.total - gc;
}

const inFile = (file: string) => (name: string) => new RegExp(`^JS:[~^+*]?\\S* \\S*/dist/src/${file}`).test(name);
/** The table of one workload: with and without the checks, and where the checks' instructions go. */
function table(withChecks: CgDump, withoutChecks: CgDump, requests: number): { md: string; share: number } {
  const k = (ir: number) => (ir / requests / 1000).toFixed(1);
  const a = withChecks.total, b = withoutChecks.total, share = (100 * (a - b)) / a;
  say(`with the checks ${k(a)} k instructions a request, without ${k(b)} k: ${share.toFixed(2)} %`);
  const parts: Array<[string, (n: string) => boolean]> = [
    ['all of src/integrity/ (the request\'s times, which detection then reuses; the checks; evidence per visit and event; stamping)', inFile('integrity/')],
    ['of which checkSignals (check.ts: flags, jumps, the networks heard and their learned places)', inFile('integrity/check.js')],
  ];
  const rows = parts.map(([name, m]) => { const { ir } = inclusive(withChecks, m); return [name, k(ir), `${((100 * ir) / a).toFixed(2)} %`]; });
  rows.push(['**the task with the checks** (whole pass)', k(a), '100 %']);
  rows.push(['the task with `checkSignals` stubbed out (DIR2)', k(b), `${((100 * b) / a).toFixed(2)} %`]);
  rows.push(['**what the checks add** (with − without)', k(a - b), `${share.toFixed(2)} %`]);
  // The collector's share moves by a whole cycle between runs of one build (where the heap's limit falls): the rest, apart.
  const am = mutator(withChecks), bm = mutator(withoutChecks), shareM = (100 * (am - bm)) / am;
  say(`outside the garbage collector: with ${k(am)} k, without ${k(bm)} k: ${shareM.toFixed(2)} %`);
  rows.push(['the task with the checks, outside V8\'s garbage collector', k(am), `${((100 * am) / a).toFixed(2)} %`]);
  rows.push(['the task without, outside the garbage collector', k(bm), `${((100 * bm) / a).toFixed(2)} %`]);
  rows.push(['**what the checks add outside the garbage collector**', k(am - bm), `${shareM.toFixed(2)} % of the task outside it`]);
  return { md: markdownTable(['part', 'k instructions a request', 'share of the task'], rows, ['left', 'right', 'right']), share };
}

const http = table(measure(ROOT, 'with-http'), measure(path.resolve(without), 'without-http'), bodies * rounds);
let md = `bench:instructions' workload (the bench:http bodies, ${bodies} a pass, seed 1, Monaco store, one thread) under callgrind in this checkout and in a copy whose \`checkSignals\` returns at once; ${warmup} warm-up passes, ${rounds} measured. Instructions, not time: the same on a busy machine.

${http.md}`;
if (flag.has('requests')) {
  const set = path.resolve(flag.str('requests', '')), limit = flag.num('limit', 300), passes = Math.max(2, flag.num('passes', 3));
  const tmp = mkdtempSync(path.join(tmpdir(), 'dwell-integrity-cost-venues-'));
  try {
    const r = await runImport({ format: 'jsonl', file: flag.str('venues', ''), out: path.join(tmp, 'venues'), quiet: true });
    const store = path.join(tmp, 'venues');
    const vd = table(measureVdsim(ROOT, 'with-vdsim', store, set, limit, passes), measureVdsim(path.resolve(without), 'without-vdsim', store, set, limit, passes), limit * (passes - 1));
    md += `\n\nvdsim traffic: the first ${limit} requests of ${path.basename(set)} (${r.venues} venues) through the detection task in one thread (bench/integrity-task.ts), ${passes} passes under new user ids, the first left out.\n\n${vd.md}`;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
md += '\n\nTarget: at most 3 % of a detection request\'s CPU (issue 43).';
console.log(md);
writePerformanceSection('integrity-cost', md);
