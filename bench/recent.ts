/**
 * What keeping recent detections for the explorer (recent/lmdb.ts) costs a detection: the detect
 * route's `record` at a steady rate for one app, with a 4.4 KB body and a 4.4 KB answer each,
 * against the same loop recording nothing (the floor: the pacing timers alone), in one run.
 * Process CPU (the HTTP thread and lmdb-js's writer thread) per detection, median and range of
 * the rounds.
 *
 *   node dist/bench/recent.js [--rate 1500] [--seconds 4] [--rounds 3] [--count 100] [--no-doc]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openRecent } from '../src/recent/lmdb.js';
import type { NewDetection } from '../src/recent/types.js';
import { mulberry32 } from './lib/rng.js';
import { spread } from './lib/stats.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const argv = readFlags({ rate: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, count: { type: 'string' }, 'no-doc': { type: 'boolean' } });
const rate = numFlag('rate', argv.rate, 1500, 10, 100_000);
const seconds = numFlag('seconds', argv.seconds, 4, 0.5, 600);
const rounds = numFlag('rounds', argv.rounds, 3, 1, 50);
const count = numFlag('count', argv.count, 100, 1, 100_000);

/** Arrivals come as the HTTP thread sees them at this rate: a few per wake-up, every TICK_MS. */
const TICK_MS = 8;
const perTick = Math.max(1, Math.round((rate * TICK_MS) / 1000));
const random = mulberry32(1);
const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
const body = bytes(4400), answer = bytes(4400);

const dir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-recent-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const recent = openRecent(dir, { count, maxAgeMs: 7 * 86_400_000, optOut: new Set() });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Process CPU µs a detection over one round; `keep` false records nothing (the floor). */
async function round(keep: boolean): Promise<number> {
  const ticks = Math.round((seconds * 1000) / TICK_MS);
  const c0 = process.cpuUsage();
  for (let t = 0; t < ticks; t++) {
    for (let k = 0; k < perTick && keep; k++) {
      const d: NewDetection = { at: Date.now(), user: `u${k}`, kind: 'structured', request_id: null, tally: { venue: 1, transit: 0, no_venue: 0 }, body: body.slice(), gzip: true, answer: () => answer };
      recent.record('ak_bench', d);
    }
    await sleep(TICK_MS);
  }
  await recent.flushed();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / (ticks * perTick);
}

process.stderr.write(`[bench:recent] ${perTick} detections every ${TICK_MS} ms (${Math.round((perTick * 1000) / TICK_MS)} a second) for ${seconds} s, ${rounds} rounds, count ${count}\n`);
await round(true); // warm-up: the JIT, the environment's first pages
const kept: number[] = [], floor: number[] = [];
for (let r = 0; r < rounds; r++) {
  kept.push(await round(true));
  floor.push(await round(false));
  process.stderr.write(`[bench:recent] round ${r + 1}: kept ${kept[r].toFixed(1)} µs, floor ${floor[r].toFixed(1)} µs a detection\n`);
}
const listed = await recent.list('ak_bench', 1_000);
if (listed.length !== count) throw new Error(`expected the newest ${count} detections listed, found ${listed.length}`);
await recent.close();

const fmt = (s: ReturnType<typeof spread>) => [s.median.toFixed(1), `${s.min.toFixed(1)}–${s.max.toFixed(1)}`];
const k = spread(kept), f = spread(floor), extra = spread(kept.map((x, i) => x - floor[i]));
const md = `The detect route's \`record\` for one app at ${Math.round((perTick * 1000) / TICK_MS)} detections a second (${perTick} every ${TICK_MS} ms), ` +
  `a 4.4 KB body and answer each, ${count} kept per app; process CPU (HTTP thread and LMDB's writer) per detection, ${rounds} rounds of ${seconds} s, ` +
  `the floor (the same loop recording nothing) in the same run.\n\n` +
  markdownTable(['', 'µs CPU a detection, median', 'range'], [['recent detections kept', ...fmt(k)], ['floor (nothing recorded)', ...fmt(f)], ['**what keeping costs**', ...fmt(extra)]], ['left', 'right', 'right']);
console.log(md);
writePerformanceSection('recent', md);
process.exit(0);
