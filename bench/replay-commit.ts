/**
 * What a replay claim (contract §1: a signature is stored before its request is acted upon) makes
 * a request wait, and what it costs: server/replay-cache.ts, which commits a turn's signatures in
 * one synchronous transaction on the HTTP thread, against lmdb-js's asynchronous `put` on the same
 * environment options (what the cache did before: its writer thread commits, then answers across
 * threads), in one run, the two taking turns round by round.
 *
 * - paced: one claim every `--gap-ms` (a server at part load: each claim alone in its turn), the
 *   time from the call to its answer, and the process CPU a claim (less the pacing timer's own,
 *   measured alone);
 * - bursts: `--burst` claims in one turn, back to back (a server at its peak), process CPU a claim.
 *
 *   node dist/bench/replay-commit.js [--claims 1000] [--gap-ms 2] [--burst 8] [--rounds 3] [--no-doc]
 *
 * Writes docs/performance.md, section "replay-commit".
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { ReplayCache } from '../src/server/replay-cache.js';
import { tempDir } from '../src/devkit/temp-dir.js';
import { mulberry32 } from '../src/seeded.js';
import { readFlags } from '../src/devkit/flags.js';
import { Samples, median, medianRange } from './lib/stats.js';
import { writePerformanceSection } from './lib/perf-doc.js';

const argv = readFlags({
  claims: { type: 'string', default: '1000' },
  'gap-ms': { type: 'string', default: '2' },
  burst: { type: 'string', default: '8' },
  rounds: { type: 'string', default: '3' },
  'no-doc': { type: 'boolean' },
});
const claims = Number(argv.claims), gapMs = Number(argv['gap-ms']), burst = Number(argv.burst), rounds = Number(argv.rounds);

const dir = tempDir('dwell-bench-replay-');
const cache = new ReplayCache(path.join(dir, 'cache'));
const root = open({ path: path.join(dir, 'lmdb-put', 'replay.mdb'), compression: false, noSync: true });
const db = root.openDB<number, string>({ name: 'expiring-0' });

// Signatures as clients send them: 64 hex characters, seeded.
const rand = mulberry32(44);
const hex = () => Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
const nowS = Math.floor(Date.now() / 1000);

type Way = 'cache' | 'put';
const claim: Record<Way, () => Promise<unknown>> = {
  cache: () => cache.record('ak_bench', hex(), nowS),
  put: () => db.put(`ak_bench:${hex().slice(0, 32)}`, nowS + 300),
};

const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One claim every gapMs: each claim's wait in ms, and the process CPU µs a claim including the timer. */
async function paced(way: Way): Promise<{ waits: Samples; cpu: number }> {
  const waits = new Samples();
  const c0 = process.cpuUsage();
  for (let i = 0; i < claims; i++) {
    await sleep(gapMs);
    const t = performance.now();
    await claim[way]();
    waits.add(performance.now() - t);
  }
  return { waits, cpu: cpuUs(process.cpuUsage(c0)) / claims };
}

/** The pacing alone: process CPU µs a gap. */
async function timerAlone(): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < claims; i++) await sleep(gapMs);
  return cpuUs(process.cpuUsage(c0)) / claims;
}

/** `burst` claims a turn, turn after turn: process CPU µs a claim. */
async function bursts(way: Way): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < claims; i += burst) {
    const turn: Promise<unknown>[] = [];
    for (let k = 0; k < burst; k++) turn.push(claim[way]());
    await Promise.all(turn);
  }
  return cpuUs(process.cpuUsage(c0)) / claims;
}

// Warm-up: JIT, both environments' first pages.
for (const way of ['cache', 'put'] as Way[]) { await bursts(way); await paced(way); }

const timer: number[] = [];
const results: Record<Way, { p50: number[]; p90: number[]; p99: number[]; cpu: number[]; burst: number[] }> = {
  cache: { p50: [], p90: [], p99: [], cpu: [], burst: [] }, put: { p50: [], p90: [], p99: [], cpu: [], burst: [] },
};
for (let r = 0; r < rounds; r++) {
  timer.push(await timerAlone());
  for (const way of (r % 2 ? ['put', 'cache'] : ['cache', 'put']) as Way[]) {
    const { waits, cpu } = await paced(way);
    const s = waits.summary();
    results[way].p50.push(s.p50); results[way].p90.push(s.p90); results[way].p99.push(s.p99); results[way].cpu.push(cpu);
    results[way].burst.push(await bursts(way));
  }
  process.stderr.write(`[replay-commit] round ${r + 1} of ${rounds} done\n`);
}
const t = median(timer);
const less = (xs: number[]) => xs.map((x) => x - t);
const row = (label: string, w: Way) => `| ${label} | ${medianRange(results[w].p50, 3)} | ${medianRange(results[w].p90, 3)} | ${medianRange(results[w].p99, 3)} | ${medianRange(less(results[w].cpu), 0)} | ${medianRange(results[w].burst, 1)} |`;
const ratio = (k: 'p50' | 'p90' | 'p99') => (median(results.cache[k]) / median(results.put[k])).toFixed(2);
const md = `A replay claim's wait and cost (server/replay-cache.ts), ${rounds} rounds taking turns, median (min–max) of the rounds; ${claims} claims a round each way.\n\n` +
  `| claim | wait ms, one every ${gapMs} ms: p50 | p90 | p99 | process CPU µs a claim, paced (less the timer) | process CPU µs a claim, ${burst} a turn |\n|---|---:|---:|---:|---:|---:|\n` +
  `${row('one synchronous commit a turn (the cache)', 'cache')}\n${row('lmdb-js asynchronous put (its writer thread)', 'put')}\n\n` +
  `The cache's wait against the asynchronous put's: p50 ${ratio('p50')} ×, p90 ${ratio('p90')} ×, p99 ${ratio('p99')} ×. The pacing timer alone: ${t.toFixed(0)} µs of CPU a gap (median), taken off.`;
console.log(`\n${md}`);
writePerformanceSection('replay-commit', md);
await cache.close();
await root.close();
rmSync(dir, { recursive: true, force: true });
