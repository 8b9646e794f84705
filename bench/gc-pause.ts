/**
 * What a detection worker's young generation buys: the same detections (bench:http bodies, seed 1,
 * Monaco store, the Piscina task function) in a worker thread with `maxYoungGenerationSizeMb`
 * each of `--sizes`, one worker at a time, rounds interleaved (16, 32, 64, 16, …) so a neighbour's
 * load falls on every size alike. Per worker: V8's GC entries (perf_hooks) over `--requests`
 * detections after a warm-up pass: how many scavenges and mark-compacts, their pauses, and the
 * worker's heap after. Pause times move with the machine's load (a scavenge's helper threads wait
 * for a core); the counts and the bytes do not. Writes docs/performance.md, section "gc-pause".
 *
 *   node dist/bench/gc-pause.js [--sizes 16,32,64] [--requests N (3000)] [--rounds N (3)] [--no-doc]
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Result { mb: number; scavenges: number; scavengeMs: number; maxScavengeMs: number; marks: number; markMs: number; maxMarkMs: number; cpuMsPerReq: number; heapUsedMb: number; heapTotalMb: number }

if (isMainThread) {
  const { markdownTable } = await import('./lib/table.js');
  const { writePerformanceSection } = await import('./lib/perf-doc.js');
  const { median, medianRange } = await import('./lib/stats.js');
  const argv = readFlags({ sizes: { type: 'string', default: '16,32,64' }, requests: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '3' }, 'no-doc': { type: 'boolean' } });
  const sizes = argv.sizes!.split(',').map(Number);
  const requests = Number(argv.requests), rounds = Number(argv.rounds);
  const runs = new Map<number, Result[]>(sizes.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    for (const mb of sizes) {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { mb, requests }, resourceLimits: { maxYoungGenerationSizeMb: mb } });
      const res = await new Promise<Result>((ok, fail) => { w.once('message', ok); w.once('error', fail); });
      await w.terminate();
      runs.get(mb)!.push(res);
      process.stderr.write(`[gc-pause] round ${r + 1} ${mb} MB: ${JSON.stringify(res)}\n`);
    }
  }
  const med = (mb: number, k: keyof Result) => median(runs.get(mb)!.map((x) => x[k]));
  const range = (mb: number, k: keyof Result, d = 1) => medianRange(runs.get(mb)!.map((x) => x[k]), d);
  const base = med(sizes[sizes.length - 1], 'cpuMsPerReq');
  const rows = sizes.map((mb) => [String(mb), range(mb, 'scavenges', 0), range(mb, 'scavengeMs'), range(mb, 'maxScavengeMs'), range(mb, 'marks', 0), range(mb, 'markMs'), range(mb, 'maxMarkMs'),
    range(mb, 'heapTotalMb'), (med(mb, 'cpuMsPerReq') / base).toFixed(2)]);
  const table = markdownTable(['young generation MB', 'scavenges', 'scavenge pauses ms in all', 'longest scavenge ms', 'mark-compacts', 'mark-compact pauses ms', 'longest mark-compact ms', 'heap MB after (total)', `worker CPU a request ÷ ${sizes[sizes.length - 1]} MB's`],
    rows, ['right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right']);
  const md = `One detection worker thread at a time (\`maxYoungGenerationSizeMb\` as in server/pool.ts), ${requests} detections of the bench:http bodies (seed 1, Monaco store) after a warm-up pass of the same, ${rounds} rounds interleaved; median (min–max) of the rounds. GC entries from perf_hooks inside the worker.\n\n${table}`;
  console.log(md);
  writePerformanceSection('gc-pause', md);
  process.exit(0);
} else {
  const { mb, requests } = workerData as { mb: number; requests: number };
  const { loadStore } = await import('../src/venues/store.js');
  const { structuredRequest } = await import('./lib/detect-requests.js');
  const { prepareBody } = await import('./lib/signing.js');
  const bodies = 500;
  const gz = Array.from({ length: bodies }, (_, i) => prepareBody(structuredRequest(1, i)).gz);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-gc-'));
  const store = await loadStore(path.join(ROOT, 'data/monaco'));
  const detect = (await import('../workers/detect.js')).default as (t: unknown) => unknown;
  const app = { app_key: 'ak_bench', confirm_dwell_s: 300 };
  let now = Date.now();
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      if (i % bodies === 0) now += 86_400_000;
      const r = detect({ body: gz[i % bodies], gzip: true, sync: true, app, store, dataDir, now });
      if (r instanceof Promise) await r;
    }
  };
  await run(bodies);
  let sink = gunzipSync(gz[0]).length;
  const res: Result = { mb, scavenges: 0, scavengeMs: 0, maxScavengeMs: 0, marks: 0, markMs: 0, maxMarkMs: 0, cpuMsPerReq: 0, heapUsedMb: 0, heapTotalMb: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) { res.scavenges++; res.scavengeMs += e.duration; res.maxScavengeMs = Math.max(res.maxScavengeMs, e.duration); }
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) { res.marks++; res.markMs += e.duration; res.maxMarkMs = Math.max(res.maxMarkMs, e.duration); }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const c0 = process.cpuUsage();
  await run(requests);
  const c = process.cpuUsage(c0);
  res.cpuMsPerReq = (c.user + c.system) / 1000 / requests;
  // GC entries are delivered asynchronously: one turn of the loop.
  await new Promise((ok) => setTimeout(ok, 50));
  obs.disconnect();
  const h = process.memoryUsage();
  res.heapUsedMb = h.heapUsed / 2 ** 20; res.heapTotalMb = h.heapTotal / 2 ** 20;
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (sink < 0) sink = 0;
  parentPort!.postMessage(res);
}
