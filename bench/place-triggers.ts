/**
 * What place triggers cost a detection request (contract §11, issue 42: at most 10 % more server
 * CPU with 100 triggers matching a tenth of a 10-million-venue store than with none). In-process,
 * the whole Piscina task function (inflate to serialised answer, user record committed) as the
 * workers run it, against a seeded synthetic store (place-triggers-store.ts: `--venues` venues
 * evenly around Monaco at a city centre's density, about 2,000 a km², a 70 km square at the
 * default ten million; random taxonomy types with their default radii, 40 % of one of 400 brands;
 * built once and cached under the temp directory). Two apps send the same `bench:http` bodies (500 new users a pass, ten fixes
 * an event): one with no place trigger (the floor), one with 100 triggers on 100 of the brands (a
 * tenth of the store), each on the venue's own radius, half with a 300 s dwell. Passes alternate
 * between the two, each pass a new day for the users, after a warm-up of both.
 *
 * Two measures of the same passes:
 * - CPU time of this process per request, median and range of the rounds' ratios (moves with the
 *   machine's load: the 2 cores are shared);
 * - `--callgrind`: the same process under valgrind's callgrind, instructions per request of each
 *   pass (load-independent; --single-threaded node, JIT compilation not counted, as
 *   bench/instructions.ts). Each pass is cut into its own dump where it reads process.cpuUsage().
 *
 *   node dist/bench/place-triggers.js [--venues 10000000] [--bodies 1000] [--rounds 5] [--callgrind] [--no-doc]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { valueSymbol } from 'piscina';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStore } from '../src/venues/store.js';
import { lmdbPlaceTriggers, openPlaceTriggerEnv } from '../src/place-triggers/lmdb-store.js';
import type { DetectTask } from '../src/pipeline/task.js';
import { structuredRequest } from './lib/detect-requests.js';
import { prepareBody } from './lib/signing.js';
import { spread } from './lib/stats.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readDump } from './lib/callgrind.js';
import { readFlags } from '../src/devkit/flags.js';
import { BRANDS, DENSITY, syntheticStore } from './place-triggers-store.js';

const argv = readFlags({
  venues: { type: 'string' }, bodies: { type: 'string' }, rounds: { type: 'string' }, 'no-doc': { type: 'boolean' },
  callgrind: { type: 'boolean' }, 'under-valgrind': { type: 'boolean' }, keep: { type: 'string' },
});
const nVenues = numFlag('venues', argv.venues, 10_000_000, 1000, 20_000_000);
const nBodies = numFlag('bodies', argv.bodies, argv.callgrind ? 100 : 1000, 10, 100_000);
const rounds = numFlag('rounds', argv.rounds, argv.callgrind ? 4 : 6, 1, 50);
const say = (s: string) => process.stderr.write(`[bench:place-triggers] ${s}\n`);
const TRIGGERS = 100, SEED = 7;
/** V8's collector by callgrind's function names: marking, sweeping, scavenging, evacuation, write barriers. */
const GC = /^(?:void |bool |heap::base::SlotCallbackResult )?(?:heap::base::|Builtins_RecordWrite|v8::internal::(?:\w*(?:Marking|MarkCompact|MarkBit|Sweep|Scaveng|Evacuat|Heap::|WriteBarrier|LiveObject|RememberedSet|SlotSet|Compactor)|HeapObject::SizeFromMap|BodyDescriptorBase::IteratePointers|Heap))/;

const built = await syntheticStore(nVenues, SEED, say);
const matching = built.branded.slice(0, TRIGGERS).reduce((a, b) => a + b, 0);
say(`${nVenues.toLocaleString('en-US')} venues ${built.built ? `built in ${built.seconds.toFixed(0)} s` : 'from the cache'}; ${(100 * matching / nVenues).toFixed(1)} % of them of a triggered brand`);

if (argv.callgrind) await underCallgrind();
else await measure();
process.exit(0);

/** The passes, alternating; answers CPU µs a request of each. */
async function measure(): Promise<void> {
  // The detection caches (cache-budget.ts) sized so that neither app's entries are evicted: the
  // eviction of the learned-value cache (learned/cache.ts) takes from the first app it holds, which
  // is one of the two, and its cost grows from pass to pass, so with the default budget the
  // passes measured which app was evicted and how late in the run, not the triggers.
  process.env.DWELL_CACHE_MB ??= '4096';
  const store = await loadStore(built.root);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-places-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  // Two apps in one data directory: no trigger, and 100.
  const dataDir = path.join(tmp, 'data');
  const triggers = lmdbPlaceTriggers(openPlaceTriggerEnv(dataDir));
  for (let b = 0; b < TRIGGERS; b++) {
    const made = await triggers.create('ak_places', { brand: `brand ${b}`, type_id: null, radius: null, dwell: b % 2 ? 300 : 0, tag: `b${b}`, push_text: null, metadata: { brand: b } });
    if (!made) throw new Error('trigger refused');
  }
  await triggers.close();
  // Imported after the store so the worker module's start-up is outside the figures.
  const detect = (await import('../workers/detect.js')).default as (t: DetectTask) => unknown;
  /** Each pass its own seed: new users, so every pass's fixes are new to their presence (a seen fix is skipped before any search). */
  const bodiesOf = (seed: number) => Array.from({ length: nBodies }, (_, i) => prepareBody(structuredRequest(seed, i)).gz);
  const appOf = (key: string) => ({ app_key: key, confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false });
  const apps = { none: appOf('ak_none'), places: appOf('ak_places') };
  const utf8 = new TextDecoder();
  let now = Date.parse('2026-11-27T00:00:00Z');
  let events = 0;
  /** CPU µs a request over one pass of every body for one app; process.cpuUsage() at its two ends is where callgrind cuts. */
  async function pass(which: keyof typeof apps, gz: Uint8Array[]): Promise<number> {
    // Under callgrind a full collection between passes (outside the counted dumps), so that no
    // pass inherits the marking the one before started: it fell on whichever pass ran during it.
    (globalThis as { gc?: () => void }).gc?.();
    const answers: Array<{ ok: boolean; response?: Uint8Array }> = [];
    const c0 = process.cpuUsage();
    for (let i = 0; i < gz.length; i++) {
      let r = detect({ body: gz[i], gzip: true, sync: true, app: apps[which], store, dataDir, now } satisfies DetectTask);
      if (r instanceof Promise) r = await r;
      // A synchronous answer comes wrapped for Piscina to move its bytes (pipeline/detect.ts settle).
      answers.push(((r as Record<symbol, unknown>)[valueSymbol] ?? r) as { ok: boolean; response?: Uint8Array });
    }
    const c = process.cpuUsage(c0);
    // Read after the pass: decoding the answers to count the events is the bench's work, not the server's.
    for (const out of answers) {
      if (!out.ok) throw new Error(`detection failed: ${JSON.stringify(out)}`);
      if (which === 'places' && out.response) events += utf8.decode(out.response).split('"trigger_id"').length - 1;
    }
    now += 86_400_000; // each pass a new day: new stays for the users
    return (c.user + c.system) / gz.length;
  }
  say(`${nBodies} bodies, ${rounds} rounds after a warm-up of two rounds`);
  for (let w = 0; w < 2; w++) { const warm = bodiesOf(1000 + w); await pass('none', warm); await pass('places', warm); }
  events = 0;
  const none: number[] = [], places: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const gz = bodiesOf(r + 1);
    // Alternating which goes first, so neither always runs on the warmer caches.
    if (r % 2) { places.push(await pass('places', gz)); none.push(await pass('none', gz)); }
    else { none.push(await pass('none', gz)); places.push(await pass('places', gz)); }
    say(`round ${r + 1}: none ${none[r].toFixed(0)} µs, 100 triggers ${places[r].toFixed(0)} µs a request`);
  }
  const perRequest = Math.round((events / rounds / nBodies) * 10) / 10;
  if (argv['under-valgrind']) {
    fs.writeFileSync(path.join(process.cwd(), 'events.json'), JSON.stringify({ perRequest }));
    return;
  }
  const n = spread(none), p = spread(places), ratio = spread(places.map((x, i) => x / none[i]));
  const fmt = (s: ReturnType<typeof spread>, d = 0) => [s.median.toFixed(d), `${s.min.toFixed(d)}–${s.max.toFixed(d)}`];
  const md = `${setting(perRequest)} CPU time of the process per request, ${rounds} rounds after a warm-up of two (the machine's load moves it: the ratio of each round's pair is the figure).\n\n` +
    markdownTable(['', 'µs CPU a request, median', 'range'], [
      ['no place trigger (floor)', ...fmt(n)],
      [`${TRIGGERS} place triggers, a tenth of the store`, ...fmt(p)],
      ['**ratio (target ≤ 1.10)**', ...fmt(ratio, 3)],
    ], ['left', 'right', 'right']);
  console.log(md);
  if (!argv['no-doc']) writePerformanceSection('place-triggers', md);
}

function setting(eventsPerRequest: number): string {
  return `Whole detection task in-process (inflate to serialised answer, record committed), ${nBodies} \`bench:http\` bodies a pass (500 new users a pass, ten fixes an event), ` +
    `against a seeded synthetic store of ${nVenues.toLocaleString('en-US')} venues spread evenly over a ${Math.round(Math.sqrt(nVenues / DENSITY))} km square around Monaco (${Math.round(DENSITY).toLocaleString('en-US')} a km², a city centre's density; ` +
    `random taxonomy types and their default radii; 40 % of one of ${BRANDS} brands; bench/place-triggers-store.ts). The same bodies for an app with no place trigger and for one with ${TRIGGERS} ` +
    `brand triggers matching a tenth of the store (own radius, half with a 300 s dwell; ${eventsPerRequest} place events a request), passes alternating.`;
}

/** This benchmark again under callgrind; instructions a request of each measured pass. */
async function underCallgrind(): Promise<void> {
  const dir = path.resolve(argv.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-places-cg-')));
  fs.mkdirSync(dir, { recursive: true });
  const self = fileURLToPath(import.meta.url);
  const nodeFlags = ['--single-threaded', '--interrupt-budget=16384', '--perf-basic-prof', '--interpreted-frames-native-stack', '--expose-gc'];
  const args = ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--dump-before=uv_getrusage',
    '--toggle-collect=v8::internal::Runtime_Compile*', '--collect-atstart=yes',
    process.execPath, ...nodeFlags, self, '--under-valgrind', '--no-doc', '--venues', String(nVenues), '--bodies', String(nBodies), '--rounds', String(rounds)];
  say(`valgrind --tool=callgrind … (${nBodies} bodies, ${rounds} rounds after two of warm-up; minutes)`);
  const t0 = Date.now();
  const child = spawnSync('valgrind', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], maxBuffer: 64 << 20 });
  if (child.status !== 0) throw new Error(`valgrind exited ${child.status}: ${child.stderr.slice(-3000)}`);
  const wallS = (Date.now() - t0) / 1000;
  // Dumps: .1 start-up, then per pass its body (even numbers) and the gap to the next (odd). Passes:
  // two warm-up rounds (none, places), then each round's pair in its order (none first in even rounds).
  const passes = fs.readdirSync(dir).filter((f) => /^cg\.out\.\d+$/.test(f)).map((f) => Number(f.split('.')[2])).sort((a, b) => a - b);
  const bodies = passes.filter((n) => n % 2 === 0);
  if (bodies.length !== 4 + 2 * rounds) throw new Error(`expected ${4 + 2 * rounds} pass dumps, found ${bodies.length} (${passes.join(', ')})`);
  // k instructions a request of a pass, and of it outside V8's garbage collector (its marking,
  // sweeping, scavenges and write barriers: a collection cycle falls on whichever pass runs when
  // the heap reaches its limit, a million instructions a request of this pass and none of the next).
  const k = (n: number) => {
    const d = readDump(path.join(dir, `cg.out.${n}`));
    let gc = 0;
    for (const f of d.fns.values()) if (GC.test(f.name)) gc += f.self;
    return { all: d.total / nBodies / 1000, mutator: (d.total - gc) / nBodies / 1000 };
  };
  const none: number[] = [], places: number[] = [], noneM: number[] = [], placesM: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const [a, b] = [k(bodies[4 + 2 * r]), k(bodies[5 + 2 * r])];
    const [n, p] = r % 2 ? [b, a] : [a, b];
    none.push(n.all); places.push(p.all); noneM.push(n.mutator); placesM.push(p.mutator);
  }
  const events = JSON.parse(fs.readFileSync(path.join(dir, 'events.json'), 'utf8')) as { perRequest: number };
  if (!argv.keep) fs.rmSync(dir, { recursive: true, force: true });
  const n = spread(none), p = spread(places), ratio = spread(places.map((x, i) => x / none[i]));
  const mRatio = spread(placesM.map((x, i) => x / noneM[i]));
  const fmt = (s: ReturnType<typeof spread>, d = 0) => [s.median.toFixed(d), `${s.min.toFixed(d)}–${s.max.toFixed(d)}`];
  const md = `${setting(events.perRequest)} Instructions per request under callgrind (node --single-threaded, JIT compilation not counted, as bench:instructions), ` +
    `${rounds} rounds after a warm-up of two, a full collection before each pass; the count does not move with the machine's load. Under valgrind the run took ${wallS.toFixed(0)} s.\n\n` +
    markdownTable(['', 'k instructions a request, median', 'range'], [
      ['no place trigger (floor)', ...fmt(n)],
      [`${TRIGGERS} place triggers, a tenth of the store`, ...fmt(p)],
      ['**ratio (target ≤ 1.10)**', ...fmt(ratio, 3)],
      ['no place trigger, outside the garbage collector', ...fmt(spread(noneM))],
      [`${TRIGGERS} place triggers, outside the garbage collector`, ...fmt(spread(placesM))],
      ['**ratio outside the garbage collector**', ...fmt(mRatio, 3)],
    ], ['left', 'right', 'right']);
  console.log(md);
  if (!argv['no-doc']) writePerformanceSection('place-triggers-instructions', md);
}
