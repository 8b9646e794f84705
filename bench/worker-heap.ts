/**
 * What an idle detection worker holds, by V8 heap space: a worker thread loads workers/detect.js
 * as the pool's workers do (the place database handed over in workerData, as server/pool.ts
 * does), collects its garbage, and reports its heap spaces; this thread reports the anonymous
 * memory the workers added, per worker. No venue store, no detections: the floor under the
 * server's idle figure (bench:memory), whose workers have also warmed up.
 *
 *   node --expose-gc dist/bench/worker-heap.js [--workers N (2)] [--no-doc]
 */
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { placeDbBuffer } from '../src/venues/place-db/share.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const MB = 1048576;

if (!isMainThread) {
  await import('../workers/detect.js');
  (globalThis as { gc?: () => void }).gc?.();
  parentPort!.postMessage({ spaces: v8.getHeapSpaceStatistics(), heap: v8.getHeapStatistics() });
  setInterval(() => {}, 1 << 30);
} else {
  const argv = readFlags({ workers: { type: 'string' }, 'no-doc': { type: 'boolean' } });
  const n = Math.round(numFlag('workers', argv.workers, 2, 1, 16));
  const anon = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
  const placeDb = placeDbBuffer();
  const before = anon();
  type Report = { spaces: v8.HeapSpaceInfo[]; heap: v8.HeapInfo };
  let last: Report | undefined;
  for (let i = 0; i < n; i++) {
    const w = new Worker(new URL(import.meta.url), { workerData: { placeDb } });
    last = await new Promise<Report>((resolve) => w.once('message', resolve));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const perWorker = (anon() - before) / n;
  const rows = last!.spaces.filter((s) => s.space_size > 0).map((s) => [s.space_name, (s.space_size / MB).toFixed(1), (s.space_used_size / MB).toFixed(1)]);
  rows.push(['**heap in all**', (last!.heap.total_heap_size / MB).toFixed(1), (last!.heap.used_heap_size / MB).toFixed(1)]);
  const gcNote = typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'after a full GC' : 'without --expose-gc, so before a full GC';
  const md = `${n} worker threads each loading workers/detect.js with the shared place database (${(placeDb.byteLength / MB).toFixed(1)} MB, one copy, not counted below), ` +
    `heap spaces of the last one ${gcNote}; anonymous memory the workers added: **${perWorker.toFixed(1)} MB a worker** ` +
    `(a bare worker thread is about 8 MB of it).\n\n${markdownTable(['V8 space', 'MB reserved', 'MB used'], rows, ['left', 'right', 'right'])}`;
  console.log(md);
  writePerformanceSection('worker-heap', md);
  process.exit(0);
}
