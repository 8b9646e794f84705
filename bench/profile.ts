/**
 * Where the worker's task spends its CPU, by part: runs bench/http-task.js's whole-task stage
 * (the bench:http bodies through the Piscina task function, in one thread) under
 * `node --cpu-prof`, then splits the profile (lib/profile-parts.ts) and writes the table to
 * docs/performance.md, section "profile".
 *
 *   node dist/bench/profile.js [--bodies N (1000)] [--rounds N (5)] [--keep DIR] [--no-doc]
 *
 * The shares are of the task's own samples (the bench's own preparation of bodies and the module
 * start-up are outside it); the ms column is per request (samples' time / requests profiled).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitProfile, type CpuProfile, type PartRule } from './lib/profile-parts.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({ bodies: { type: 'string' }, rounds: { type: 'string' }, keep: { type: 'string' }, 'no-doc': { type: 'boolean' } });
const bodies = numFlag('bodies', argv.bodies, 1000, 10, 100_000);
const rounds = numFlag('rounds', argv.rounds, 5, 1, 100);

/** Innermost naming frame wins (lib/profile-parts.ts), so order here only breaks ties within one frame. */
export const TASK_PARTS: PartRule[] = [
  { part: 'inflate (gunzip)', fn: 'inflateSync', file: '/http/body.js' },
  { part: 'parse (UTF-8 check, JSON.parse)', fn: 'parseJson', file: '/http/json-body.js' },
  { part: 'validate', fn: 'validateDetect', file: '/schemas/validate-detect.js' },
  // users/store.ts `modify` reads the record, runs the detection (whose frames name their own
  // parts) and commits: what is left to it is the record's read, decode, encode, put and transaction.
  { part: '', fn: 'teaching', file: '/learned/' },
  { part: 'learned tables', file: '/learned/' },
  { part: 'user record read and commit (get, decode, encode, put)', fn: 'modify', file: '/users/store.js' },
  { part: 'user record read and commit (get, decode, encode, put)', fn: 'teach', file: '/users/store.js' },
  { part: 'read snapshot renewal', fn: 'fresh', file: '/users/store.js' },
  { part: 'estimated address', fn: 'estimateAddress', file: '/venues/address.js' },
  { part: 'venue lookup (index, records)', file: '/venues/store.js' },
  { part: 'ranking', fn: 'rank', file: '/detect/rank.js' },
  { part: 'evidence (Wi-Fi, priors, history)', file: '/detect/evidence/' },
  { part: 'geofences', file: '/geofences/' },
  { part: 'beacons', file: '/beacons/' },
  { part: 'answer serialisation (JSON.stringify, UTF-8)', fn: 'settle', file: '/pipeline/detect.js' },
  { part: 'detection (stays, visits, the rest)', file: '/detect/' },
];

const dir = argv.keep ? path.resolve(argv.keep) : mkdtempSync(path.join(tmpdir(), 'dwell-profile-'));
const args = ['--cpu-prof', '--cpu-prof-dir', dir, path.join(ROOT, 'dist/bench/http-task.js'), '--stage', '4', '--bodies', String(bodies), '--rounds', String(rounds)];
process.stderr.write(`[bench:profile] node ${args.map((a) => (path.isAbsolute(a) ? `<${path.basename(a)}>` : a)).join(' ')}\n`);
const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
process.stderr.write(out);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
if (!argv.keep) rmSync(dir, { recursive: true, force: true });

const split = splitProfile(profile, { fn: 'detectionTask', file: '/pipeline/detect.js' }, TASK_PARTS, 'task (the rest: request outcome, hand-off)');
// The profiler slows what it watches: the ms are the shares of the run's own CPU median (http-task's table).
const taskMs = Number(/\| whole task[^|]*\| ([\d.]+) \|/.exec(out)?.[1]);
const rows = split.parts.map((p) => [p.part, (p.share * taskMs).toFixed(3), `${(p.share * 100).toFixed(1)} %`]);
rows.push(['**task in all**', taskMs.toFixed(3), '100 %']);
const table = markdownTable(['part', '≈ CPU ms a request', 'share of the task'], rows, ['left', 'right', 'right']);
const md = `The worker's task on the bench:http bodies (${bodies} bodies, ${rounds + 1} passes, one thread, \`--cpu-prof\`), ` +
  `each sample given to the innermost frame that names a part. GC: ${((split.gcMs / split.totalMs) * 100).toFixed(1)} % of the whole profile ` +
  `(not attributed to a part). The ms are the shares of the same run's CPU median per request (the profiler's own overhead left out).\n\n${table}\n\n` +
  `Per-stage CPU of the same run (\`node dist/bench/http-task.js --stage 4\`):\n${out.trim().split('\n').slice(-3).join('\n')}`;
console.log(md);
writePerformanceSection('profile', md);
