/**
 * What the presence step costs a detection per location signal (users/presence.ts), pure and
 * in-process: seeded users walking through a 4 × 4 km square of Monaco and Beausoleil holding
 * `--fences` circles (50–200 m), each request ten fixes a minute apart, their presence carried
 * from request to request as the user's record carries it. Measured in one run, per fix:
 * - the floor: the fence index's query alone (what any geofence evaluation does);
 * - geofences without a dwell: entry and exit (issue 42: dwell bookkeeping must add nothing here),
 *   beside the same evaluation with the dwell bookkeeping taken out (presence-reference.ts);
 * - the same fences, each with a 300 s dwell: entry times kept and dwell events raised;
 * - countries (apps with region_events): each fix placed in a country from the place database.
 * Median and range of the rounds, after a warm-up round. CPU time moves with the machine's load;
 * `--callgrind` runs the same passes under valgrind's callgrind and reports instructions a fix
 * (load-independent: each pass cut into its own dump where it reads process.cpuUsage()), which is
 * what shows a difference of a few instructions, or none.
 *
 *   node dist/bench/presence.js [--fences 1000] [--users 500] [--requests 20] [--rounds 5] [--callgrind] [--no-doc]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDump } from './lib/callgrind.js';
import { evaluateWithoutDwell } from './presence-reference.js';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { circle } from '../src/geofences/geometry.js';
import { evaluate, NO_PRESENCE, type FenceInfo, type FencePresence, type FenceView, type Fix } from '../src/geofences/events.js';
import { evaluateCountries, type CountryPresence } from '../src/regions/countries.js';
import { COUNTRIES } from '../src/regions/presence.js';
import { M_PER_DEG } from '../src/geo/distance.js';
import { mulberry32 } from './lib/rng.js';
import { spread } from './lib/stats.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const argv = readFlags({
  fences: { type: 'string' }, users: { type: 'string' }, requests: { type: 'string' }, rounds: { type: 'string' }, 'no-doc': { type: 'boolean' },
  callgrind: { type: 'boolean' }, 'under-valgrind': { type: 'boolean' },
});
const fenceCount = numFlag('fences', argv.fences, 1000, 1, 1_000_000);
const userCount = numFlag('users', argv.users, 500, 1, 100_000);
const requests = numFlag('requests', argv.requests, 20, 1, 10_000);
const rounds = numFlag('rounds', argv.rounds, 5, 1, 50);

const SW = { lat: 43.72, long: 7.40 }, SIDE_DEG = 0.036; // about 4 km of latitude
const random = mulberry32(42);
const index = new FenceIndex();
for (let i = 0; i < fenceCount; i++) {
  index.add(`gf_${i}`, circle(SW.lat + random() * SIDE_DEG, SW.long + random() * SIDE_DEG * 1.4, 50 + random() * 150), Infinity);
}
index.rebuild();
const plain: FenceInfo = { tag: null, push_text: null, dwell: 0, metadata: null };
const dwelling: FenceInfo = { ...plain, dwell: 300 };
const views: Record<'plain' | 'dwell', FenceView> = { plain: { index, info: () => plain }, dwell: { index, info: () => dwelling } };

/** Each user's requests: ten fixes a minute apart, walking about 40 m a minute. */
const T0 = Date.parse('2024-06-01T08:00:00Z');
const walks: Fix[][][] = [];
for (let u = 0; u < userCount; u++) {
  let lat = SW.lat + random() * SIDE_DEG, long = SW.long + random() * SIDE_DEG * 1.4;
  const reqs: Fix[][] = [];
  for (let r = 0; r < requests; r++) {
    const fixes: Fix[] = [];
    for (let k = 0; k < 10; k++) {
      lat += ((random() - 0.5) * 80) / M_PER_DEG;
      long += ((random() - 0.5) * 80) / M_PER_DEG;
      fixes.push({ timestamp: new Date(T0 + (r * 10 + k) * 60_000).toISOString(), lat, long, accuracy: 10 });
    }
    reqs.push(fixes);
  }
  walks.push(reqs);
}
const fixCount = userCount * requests * 10;

type Variant = 'floor' | 'nodwell' | 'plain' | 'dwell' | 'countries';
let events = 0;
/** ns of CPU a fix for one pass over every user's requests. */
function pass(v: Variant): number {
  const fences = new Map<number, FencePresence>(), countries = new Map<number, CountryPresence | undefined>();
  const start = process.cpuUsage();
  for (let u = 0; u < userCount; u++) {
    for (const fixes of walks[u]) {
      if (v === 'floor') {
        for (const f of fixes) events += index.query(f.lat, f.long, f.accuracy ?? 0, T0);
      } else if (v === 'countries') {
        const ev = evaluateCountries(COUNTRIES, countries.get(u), fixes);
        if (ev.changed) countries.set(u, ev.presence);
        events += ev.events.length;
      } else if (v === 'nodwell') {
        const ev = evaluateWithoutDwell(views.plain, fences.get(u) ?? NO_PRESENCE, fixes, T0);
        if (ev.changed) fences.set(u, ev.presence);
        events += ev.events.length;
      } else {
        const ev = evaluate(views[v], fences.get(u) ?? NO_PRESENCE, fixes, T0);
        if (ev.changed) fences.set(u, ev.presence);
        events += ev.events.length;
      }
    }
  }
  const c = process.cpuUsage(start);
  return ((c.user + c.system) * 1000) / fixCount;
}

const variants: Variant[] = ['floor', 'nodwell', 'plain', 'dwell', 'countries'];
const NAMES: Record<Variant, string> = {
  floor: 'floor: fence index query',
  nodwell: 'geofences, none with a dwell, dwell bookkeeping taken out (reference)',
  plain: 'geofences, none with a dwell (events.ts as served)',
  dwell: 'geofences, each with a 300 s dwell',
  countries: 'countries (region_events), no fences',
};
const setting = `${fenceCount} circles of 50–200 m in a 4 km square of Monaco and Beausoleil, ` +
  `${userCount} seeded users × ${requests} requests of 10 fixes a minute apart, presence carried between requests`;
const fmt = (xs: number[], d = 0) => { const s = spread(xs); return [s.median.toFixed(d), `${s.min.toFixed(d)}–${s.max.toFixed(d)}`]; };

if (argv.callgrind) {
  underCallgrind();
  process.exit(0);
}
process.stderr.write(`[bench:presence] ${fenceCount} fences, ${userCount} users × ${requests} requests × 10 fixes, ${rounds} rounds\n`);
for (const v of variants) pass(v); // warm-up: the JIT, the place database's first pages
const took: Record<Variant, number[]> = { floor: [], nodwell: [], plain: [], dwell: [], countries: [] };
for (let r = 0; r < rounds; r++) {
  for (const v of variants) took[v].push(pass(v));
  process.stderr.write(`[bench:presence] round ${r + 1}: ${variants.map((v) => `${v} ${took[v][r].toFixed(0)} ns`).join(', ')} a fix\n`);
}
if (events < 0) console.log(events); // keeps the work observable
if (!argv['under-valgrind']) {
  const over = (v: Variant) => took[v].map((x, i) => x - took.floor[i]);
  const md = `The presence step alone, per location signal: ${setting}; ` +
    `CPU of this one thread, ${rounds} rounds after a warm-up, the floor (the fence index's query alone) in the same run.\n\n` +
    markdownTable(['', 'ns CPU a fix, median', 'range', 'over the floor, median'], variants.map((v) => [NAMES[v], ...fmt(took[v]), v === 'floor' || v === 'countries' ? '' : fmt(over(v))[0]]),
      ['left', 'right', 'right', 'right']) +
    '\n\nAn app with no dwell fence keeps no entry times and makes no dwell checks (events.ts: the count of pending dwells stays 0); ' +
    'an app without `region_events` looks up no border. Instruction counts of the same passes: presence-instructions below.';
  console.log(md);
  writePerformanceSection('presence', md);
}
process.exit(0);

/** These passes again under callgrind: instructions a fix of each variant, round by round. */
function underCallgrind(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-presence-cg-'));
  const nodeFlags = ['--single-threaded', '--interrupt-budget=16384'];
  const args = ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--dump-before=uv_getrusage',
    '--toggle-collect=v8::internal::Runtime_Compile*', '--collect-atstart=yes', process.execPath, ...nodeFlags, fileURLToPath(import.meta.url),
    '--under-valgrind', '--no-doc', '--fences', String(fenceCount), '--users', String(userCount), '--requests', String(requests), '--rounds', String(rounds)];
  process.stderr.write(`[bench:presence] under callgrind (${rounds} rounds; minutes)\n`);
  const t0 = Date.now();
  const child = spawnSync('valgrind', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], maxBuffer: 64 << 20 });
  if (child.status !== 0) throw new Error(`valgrind exited ${child.status}: ${child.stderr.slice(-3000)}`);
  // Dumps: .1 start-up, then per pass its body (even numbers) and the gap to the next (odd): a
  // warm-up pass of each variant, then each round's passes in variant order.
  const bodies = fs.readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).map((f) => Number(f.split('.')[2])).filter((n) => n % 2 === 0).sort((a, b) => a - b);
  if (bodies.length !== variants.length * (rounds + 1)) throw new Error(`expected ${variants.length * (rounds + 1)} pass dumps, found ${bodies.length}`);
  const ir: Record<Variant, number[]> = { floor: [], nodwell: [], plain: [], dwell: [], countries: [] };
  for (let r = 0; r < rounds; r++) {
    variants.forEach((v, k) => ir[v].push(readDump(path.join(dir, `cg.out.${bodies[variants.length * (r + 1) + k]}`)).total / fixCount));
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const plainOver = ir.plain.map((x, i) => x - ir.nodwell[i]);
  const md = `The passes of bench:presence (${setting}) under callgrind (node --single-threaded, JIT compilation not counted, as bench:instructions), ` +
    `${rounds} rounds after a warm-up; instructions do not move with the machine's load. Under valgrind the run took ${((Date.now() - t0) / 1000).toFixed(0)} s.\n\n` +
    markdownTable(['', 'instructions a fix, median', 'range'], variants.map((v) => [NAMES[v], ...fmt(ir[v])]), ['left', 'right', 'right']) +
    `\n\nWhat dwell bookkeeping adds to an app with no dwell fence, a fix: ${fmt(plainOver)[0]} instructions (rounds ${fmt(plainOver)[1]}), ` +
    `${((spread(plainOver).median / spread(ir.plain).median) * 100).toFixed(2)} % of that evaluation.`;
  console.log(md);
  if (!argv['no-doc']) writePerformanceSection('presence-instructions', md);
}
