/**
 * `npm run bench:memory`: what a Dwell process holds, as the kernel counts it (anonymous memory,
 * /proc/PID/status RssAnon: JS heaps, malloc, buffers; LMDB's mapped files are not in it).
 * `dwell serve` on the New York venues (bench:soak's set, imported here) with 1, 2 and 4
 * detection workers, idle after /readyz (the warm-up done) and after a settle; then, with 2
 * workers, after a burst of New York detections (new users, a sync app) and a settle. With
 * `--baseline DIR` (another checkout, built) the same phases run there too, one server at a time,
 * so before and after are measured in the same run.
 *
 *   node dist/bench/memory.js [--workers 1,2,4] [--detections 3000] [--burst-workers 2]
 *                             [--settle-s 10] [--baseline DIR] [--no-doc]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runImport } from '../src/venues/import/build.js';
import { atExit, freePort, waitFor200, type Service } from '../src/devkit/child.js';
import { serveDwell } from '../src/devkit/dwell-serve.js';
import { FreshUserBodies, loadRequestSet } from './lib/soak-requests.js';
import { createSyncApp, newPool, postDetect, type ErrorSamples } from './lib/detect-sender.js';
import { procMemory } from './lib/proc-memory.js';
import { markdownTable } from './lib/table.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { numFlag } from './lib/num-flag.js';
import { readFlags } from '../src/devkit/flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const say = (s: string) => process.stderr.write(`[bench:memory] ${s}\n`);
const argv = readFlags({
  workers: { type: 'string', default: '1,2,4' }, detections: { type: 'string' }, 'burst-workers': { type: 'string' },
  'settle-s': { type: 'string' }, baseline: { type: 'string' }, 'no-doc': { type: 'boolean' },
});
const workerCounts = argv.workers!.split(',').map((w) => Math.round(numFlag('workers', w, 1, 1, 64)));
const detections = Math.round(numFlag('detections', argv.detections, 3000, 0, 1_000_000));
const burstWorkers = Math.round(numFlag('burst-workers', argv['burst-workers'], 2, 1, 64));
const settleMs = numFlag('settle-s', argv['settle-s'], 10, 0, 600) * 1000;
const builds: Array<{ label: string; root: string }> = [{ label: 'this checkout', root: ROOT }];
if (argv.baseline) builds.unshift({ label: `baseline (${path.basename(path.resolve(argv.baseline))})`, root: path.resolve(argv.baseline) });

const set = loadRequestSet(undefined, say);
const tmp = mkdtempSync(path.join(tmpdir(), 'dwell-bench-memory-'));
atExit(() => rmSync(tmp, { recursive: true, force: true }));
let store: string | undefined;
if (set.venuesFile) {
  store = path.join(tmp, 'venues');
  const r = await runImport({ format: 'jsonl', file: set.venuesFile, out: store, quiet: true });
  say(`imported ${r.venues} venues in ${r.seconds} s`);
}
const bodies = new FreshUserBodies(set.bodies);

const anonMb = (svc: Service) => procMemory(svc.proc.pid!)?.anonMb ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(root: string, workers: number): Promise<{ svc: Service; adminToken: string }> {
  const dataDir = mkdtempSync(path.join(tmp, 'data-'));
  const adminToken = randomBytes(16).toString('hex');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DWELL_') && k !== 'PORT') env[k] = v;
  Object.assign(env, { PORT: String(port), DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: dataDir, DWELL_ADMIN_TOKEN: adminToken, DWELL_LOG_LEVEL: 'warn', DWELL_RATE_LIMIT: '0', DWELL_WORKERS: String(workers) });
  if (store) env.DWELL_VENUES = store;
  const svc = await serveDwell({ cli: path.join(root, 'dist/src/cli.js'), env, port });
  await waitFor200(svc.url + '/readyz', 120_000, svc.proc);
  return { svc, adminToken };
}

interface Row { build: string; workers: number; ready: number; idle: number; burst?: number; burstNote?: string }
const rows: Row[] = [];
for (const b of builds) {
  for (const workers of workerCounts) {
    const { svc, adminToken } = await start(b.root, workers);
    try {
      const ready = anonMb(svc);
      await sleep(settleMs);
      const row: Row = { build: b.label, workers, ready, idle: anonMb(svc) };
      if (workers === burstWorkers && detections > 0) {
        const target = await createSyncApp(svc.url, adminToken, 'memory');
        const pool = newPool(svc.url, 8);
        const errors: ErrorSamples = new Map();
        let left = detections;
        const caller = async () => { while (left-- > 0) await postDetect(pool, target, { ...bodies.next(), jsonBytes: 0 }, errors); };
        await Promise.all(Array.from({ length: 8 }, caller));
        await pool.destroy().catch(() => {});
        await sleep(settleMs);
        row.burst = anonMb(svc);
        if (errors.size) row.burstNote = [...errors].map(([k, e]) => `${k}: ${e.count}`).join(', ');
      }
      rows.push(row);
      say(`${b.label}, ${workers} worker(s): ${JSON.stringify(row)}`);
    } finally {
      await svc.stop();
    }
  }
}

const fmt = (mb: number | undefined) => (mb === undefined || !Number.isFinite(mb) ? '–' : mb.toFixed(0));
/** A worker's share: the marginal cost between the smallest and largest worker counts of a build. */
function perWorker(build: string): string {
  const own = rows.filter((r) => r.build === build).sort((a, b) => a.workers - b.workers);
  if (own.length < 2) return '–';
  const [lo, hi] = [own[0], own[own.length - 1]];
  return ((hi.idle - lo.idle) / (hi.workers - lo.workers)).toFixed(0);
}
const table = markdownTable(
  ['build', 'workers', 'anon MB at /readyz', `anon MB idle (+${settleMs / 1000} s)`, `anon MB after ${detections} NYC detections (+${settleMs / 1000} s)`, 'MB a worker (idle, marginal)'],
  rows.map((r) => [r.build, String(r.workers), fmt(r.ready), fmt(r.idle), fmt(r.burst) + (r.burstNote ? ` (errors: ${r.burstNote})` : ''), perWorker(r.build)]),
  ['left', 'right', 'right', 'right', 'right', 'right'],
);
const md = `\`dwell serve\` on ${set.note}; anonymous memory of the whole process (RssAnon: heaps, malloc, buffers, ` +
  `the place database's one shared copy; LMDB's mapped files excluded), one server at a time. "MB a worker" = ` +
  `(idle at the most workers − idle at the fewest) / the difference in workers.\n\n${table}`;
console.log(md);
writePerformanceSection('memory', md);
process.exit(0);
