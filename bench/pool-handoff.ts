/**
 * What a detection's trip through the Piscina pool costs by itself, with a task that does
 * nothing: process CPU per task when tasks arrive back to back (a saturated server) and when they
 * arrive evenly at a given rate (a server at part load, whose workers sleep between tasks and
 * must be woken). The pool is set up as the server's (2 workers, DWELL_WORKER_TASKS per worker,
 * a 4.4 KB body moved with each task). It explains why bench:http's server spends more CPU a
 * request at 70 % of its peak than at its peak: on a virtual machine each sleep and wake-up of a
 * thread costs tens of microseconds.
 *
 *   node dist/bench/pool-handoff.js [--rates 500,1500,3000] [--seconds 3] [--repeats 3] [--tasks 12] [--batches 1,2,4,8] [--no-doc]
 *
 * `--batches`: back to back again with tasks that each carry N requests' items (a 4.4 KB body
 * each, moved) and one shared context, sent once per task rather than per request (pipeline/gather.ts):
 * process CPU a request, so what a batch saves of the hand-off. The per-request task carries
 * the context the server sent before issue 44 (a store handle with its SharedArrayBuffer, the
 * data directory, the state target).
 *
 * Writes docs/performance.md, section "pool-handoff".
 */
import { Piscina } from 'piscina';
import { median } from './lib/stats.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { readFlags } from '../src/devkit/flags.js';

const argv = readFlags({
  rates: { type: 'string', default: '500,1500,3000' },
  seconds: { type: 'string', default: '3' },
  repeats: { type: 'string', default: '3' },
  tasks: { type: 'string', default: '12' },
  workers: { type: 'string', default: '2' },
  /** Batch sizes also measured back to back: N requests' items in one task, as server/pool.ts hands them (issue 44). */
  batches: { type: 'string', default: '1,2,4,8' },
  'no-doc': { type: 'boolean' },
});
const rates = argv.rates!.split(',').map(Number), seconds = Number(argv.seconds), repeats = Number(argv.repeats);
const threads = Number(argv.workers);

const pool = new Piscina({
  filename: new URL('./pool/echo-worker.js', import.meta.url).href,
  minThreads: threads, maxThreads: threads, idleTimeout: Infinity, concurrentTasksPerWorker: Number(argv.tasks),
});
const store = { id: 'store-bench', dir: '/tmp/x/venue-snapshots/bench', index: new SharedArrayBuffer(1 << 20), count: 150_000, counted: 120_000 };
const app = { app_key: 'ak_bench', confirm_dwell_s: 300, integrity: 'flag', region_events: false };
const task = (n: number) => {
  const body = new Uint8Array(4400);
  return [{ body, gzip: true, sync: true, app, store, dataDir: '/tmp/x', state: { kind: 'lmdb' }, now: Date.now(), n }, body.buffer] as const;
};
/** `size` requests in one task: their items, the app once, no context (the workers hold it). */
const batchTask = (size: number) => {
  const bodies = Array.from({ length: size }, () => new Uint8Array(4400));
  const items = bodies.map((body) => ({ body, gzip: true, sync: true, app: 0, now: Date.now() }));
  return [{ v: 1, apps: [app], items }, bodies.map((b) => b.buffer)] as const;
};
const runBatch = (size: number) => { const [t, bufs] = batchTask(size); return pool.run(t, { transferList: bufs as unknown as ArrayBuffer[] }).then((r: number) => { sink += r; }); };

/** Process CPU µs a request, `count` requests in batches of `size`, at most `window` batches in flight. */
async function saturatedBatches(count: number, size: number, window = 24): Promise<number> {
  const c0 = process.cpuUsage();
  let next = 0;
  const lane = async () => { while (next < count) { next += size; await runBatch(size); } };
  await Promise.all(Array.from({ length: window }, lane));
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / next;
}
let sink = 0;
const run = (n: number) => { const [t, buf] = task(n); return pool.run(t, { transferList: [buf] }).then((r: number) => { sink += r; }); };

/** Process CPU µs a task, `count` tasks with at most `window` in flight. */
async function saturated(count: number, window = 48): Promise<number> {
  const c0 = process.cpuUsage();
  let next = 0;
  const lane = async () => { while (next < count) await run(next++); };
  await Promise.all(Array.from({ length: window }, lane));
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / count;
}

/** The same at an even `rate` a second for `seconds` (a 1 ms timer sends what is due). */
async function paced(rate: number): Promise<number> {
  const count = Math.round(rate * seconds), start = performance.now(), pending: Promise<void>[] = [];
  const c0 = process.cpuUsage();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(count, Math.floor(((performance.now() - start) * rate) / 1000));
      while (sent < due) pending.push(run(sent++));
      if (sent < count) setTimeout(tick, 1); else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / count;
}

/** The pacing timer alone, no tasks: its cost is in the paced figures and is shown to subtract. */
async function timerOnly(): Promise<number> {
  const c0 = process.cpuUsage(), end = performance.now() + seconds * 1000;
  await new Promise<void>((resolve) => { const tick = () => { if (performance.now() < end) setTimeout(tick, 1); else resolve(); }; tick(); });
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / seconds; // µs a second
}

await saturated(20_000); // warm-up: JIT, worker start
const timer: number[] = [];
for (let r = 0; r < repeats; r++) timer.push(await timerOnly());
const timerPerS = median(timer);
const rows: string[] = [];
const fmt = (xs: number[]) => `${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
const sat: number[] = [];
for (let r = 0; r < repeats; r++) sat.push(await saturated(100_000));
rows.push(`| back to back (48 in flight) | ${fmt(sat)} | – |`);
for (const size of (argv.batches ?? '').split(',').filter(Boolean).map(Number)) {
  const xs: number[] = [];
  for (let r = 0; r < repeats; r++) xs.push(await saturatedBatches(100_000, size));
  rows.push(`| back to back, batches of ${size} (24 batches in flight), per request | ${fmt(xs)} | – |`);
}
for (const rate of rates) {
  const xs: number[] = [];
  for (let r = 0; r < repeats; r++) xs.push(await paced(rate));
  process.stderr.write(`${rate}/s done\n`);
  rows.push(`| ${rate} tasks/s, evenly | ${fmt(xs)} | ${(median(xs) - timerPerS / rate).toFixed(1)} |`);
}
const md = `Piscina hand-off of an empty task (a 4.4 KB body moved in with the request's context, a number back; batches: their requests' bodies and no context): ${threads} workers, ${argv.tasks} tasks per worker, ${repeats} runs each; process CPU (every thread).\n\n` +
  `| arrival | process CPU µs a task, median | range | less the pacing timer |\n|---|---:|---:|---:|\n${rows.join('\n')}\n\n` +
  `The 1 ms pacing timer alone costs ${timerPerS.toFixed(0)} µs of CPU a second (${repeats} runs, median), taken off in the last column.`;
console.log(`\n${md}`);
writePerformanceSection('pool-handoff', md);
if (sink === -1) console.log(sink);
await pool.destroy();
