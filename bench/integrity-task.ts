/**
 * bench:integrity-cost's driver on vdsim traffic (run under callgrind by bench/integrity-cost.ts):
 * the detection task of the checkout at --root (workers/detect.js), in this thread, over the first
 * --limit requests of a vdsim set, --passes times, each pass under new user ids (so each is a first
 * sight of those users, as bench:instructions' passes are). process.cpuUsage() at each pass's start
 * and end is where callgrind cuts its dumps (--dump-before=uv_getrusage), as in http-task.ts.
 *
 *   node dist/bench/integrity-task.js --root DIR --venues STORE_DIR --requests SET_DIR [--limit 300] [--passes 4]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadStore } from '../src/venues/store.js';
import type { DetectTask } from '../src/pipeline/task.js';
import { benchFlags } from '../src/devkit/flags.js';

const flag = benchFlags({ root: 'string', venues: 'string', requests: 'string', limit: 'string', passes: 'string' }, 'node dist/bench/integrity-task.js --root DIR --venues STORE_DIR --requests SET_DIR [--limit 300] [--passes 4]');
const limit = flag.num('limit', 300), passes = flag.num('passes', 4);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-integrity-task-'));
process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
const store = await loadStore(path.resolve(flag.str('venues', '')));
const detect = (await import(pathToFileURL(path.resolve(flag.str('root', ''), 'dist/workers/detect.js')).href)).default as (t: DetectTask) => unknown;
const app = { app_key: 'ak_integrity', confirm_dwell_s: 300, integrity: 'flag' as const, region_events: false };
interface Body { advertising_id?: string; user_id?: string }
const bodies = fs.readFileSync(path.join(flag.str('requests', ''), 'requests.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).slice(0, limit)
  .map((l) => (JSON.parse(l) as { body: Body }).body);
// A fixed clock: the same work on every run.
const now = Date.UTC(2026, 0, 1);
for (let pass = 0; pass < passes; pass++) {
  const gz = bodies.map((b) => gzipSync(JSON.stringify({ ...b, advertising_id: b.advertising_id && `${b.advertising_id}.${pass}`, user_id: b.user_id && `${b.user_id}.${pass}` })));
  // A full collection between passes (node --expose-gc; outside the counted dumps): a collection
  // cycle otherwise falls on whichever pass reaches the heap's limit, in one build's run and not
  // the other's (hundreds of k instructions a request either way on 300 requests).
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = process.cpuUsage();
  for (const body of gz) await detect({ body, gzip: true, sync: true, app, store, dataDir, now });
  process.cpuUsage(c0);
}
