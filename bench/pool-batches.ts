/**
 * The detection pool alone, without HTTP (issue 44): the same build's pool handing the workers one
 * task a request (as before issue 44) and batches (pipeline/gather.ts), in one run, their phases
 * taking turns so that the machine's other load falls on both alike. Each phase sends the
 * bench:http bodies (seed 1) through DetectPool.run from `--concurrency` callers in a closed loop
 * and reads the process CPU (every thread: this one, the workers, LMDB's, V8's) a request.
 *
 *   node dist/bench/pool-batches.js [--requests N (2000)] [--rounds N (3)] [--concurrency 1,48] [--no-doc]
 *
 * Writes docs/performance.md, section "pool-batches".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DetectPool } from '../src/server/pool.js';
import { loadStore } from '../src/venues/store.js';
import { structuredRequest } from './lib/detect-requests.js';
import { prepareBody } from './lib/signing.js';
import { median, medianRange } from './lib/stats.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const argv = readFlags({ requests: { type: 'string' }, rounds: { type: 'string' }, concurrency: { type: 'string', default: '1,48' }, 'no-doc': { type: 'boolean' } });
const requests = numFlag('requests', argv.requests, 2000, 10, 1_000_000);
const rounds = numFlag('rounds', argv.rounds, 3, 1, 50);
const concurrencies = argv.concurrency!.split(',').map(Number);

const store = await loadStore(path.join(ROOT, 'data/monaco'));
const gz = Array.from({ length: 2000 }, (_, i) => prepareBody(structuredRequest(1, i)).gz);
const app = { app_key: 'ak_bench', confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false };
/** As the server runs (DWELL_WORKER_TASKS 12): tasks a worker may hold; batches, at most 2 a worker (server/pool.ts). */
const kinds = [{ name: 'one task a request', maxBatch: 0, tasks: 12 }, { name: 'batches (at most 8, 2 a worker)', maxBatch: 8, tasks: 12 }];
const pools = kinds.map((k) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-pool-batches-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { ...k, dataDir, pool: new DetectPool(2, k.tasks, 1_000_000, undefined, 'off', k.maxBatch), sent: 0, now: Date.now() };
});

/** Process CPU ms a request over `count` requests from `c` callers. */
async function phase(p: (typeof pools)[number], count: number, c: number): Promise<number> {
  const c0 = process.cpuUsage();
  let left = count, failed = 0;
  const one = async () => {
    const i = p.sent++ % gz.length;
    // A new day each pass over the bodies: a replayed body is a later request of its user.
    if (i === 0) p.now += 86_400_000;
    const r = await p.pool.run({ body: new Uint8Array(gz[i]), gzip: true, sync: true, app, store, dataDir: p.dataDir, now: p.now });
    if (!r.ok) failed++;
  };
  await Promise.all(Array.from({ length: c }, async () => { while (left-- > 0) await one(); }));
  if (failed) throw new Error(`${p.name}: ${failed} detections failed`);
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / 1000 / count;
}

for (const p of pools) await phase(p, 1500, 24); // warm-up: the JIT, the stores, the caches
const rows: string[][] = [];
for (const c of concurrencies) {
  const ms = pools.map(() => [] as number[]);
  const b0 = pools.map((p) => p.pool.batched);
  for (let r = 0; r < rounds; r++) for (const [i, p] of pools.entries()) ms[i].push(await phase(p, c === 1 ? Math.ceil(requests / 4) : requests, c));
  process.stderr.write(`[pool-batches] ${c} in flight: ${pools.map((p, i) => `${p.name} ${ms[i].map((x) => x.toFixed(3)).join(', ')}`).join('; ')}\n`);
  const mean = pools.slice(1).map((p, i) => { const b1 = p.pool.batched; return ((b1.requests - b0[i + 1].requests) / (b1.batches - b0[i + 1].batches)).toFixed(2); });
  rows.push([`${c} in flight`, ...ms.map((xs) => medianRange(xs, 3)), mean.join(' / '), ms.slice(1).map((m) => (median(m) / median(ms[0])).toFixed(3)).join(' / ')]);
}
const md = `The detection pool without HTTP, 2 workers, the bench:http bodies (seed 1) from closed-loop callers; process CPU ms a request (all threads), median of ${rounds} rounds (min–max), the two ways' rounds taking turns; ${requests} requests a round (a quarter at 1 in flight).\n\n` +
  markdownTable(['callers', ...pools.map((p) => `${p.name}, CPU ms a request`), 'requests a batch, mean', 'batches / one task a request'], rows, ['left', 'right', 'right', 'right', 'right', 'right']);
console.log(md);
writePerformanceSection('pool-batches', md);
for (const p of pools) await p.pool.close();
process.exit(0);
