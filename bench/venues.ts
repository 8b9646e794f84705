/**
 * Venue store benchmark:  node dist/bench/venues.js [--sizes 1e6,1e7,1e8] [--queries 20000] [--no-nyc] [--no-doc]
 * Seeded synthetic venues clustered like cities (Zipf-sized, Gaussian spread, 5% rural), plus the
 * real New York file when present. Each size runs in its own child process so memory numbers do
 * not mix. Queries (100 m, ≤ 50 results) run inside a worker thread on the SharedArrayBuffer index.
 * Sizes above --records-max (default 1e6) are index-only: no LMDB records, which is what build
 * time and query numbers there measure; the 1M row and the NYC row include records.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runImport } from '../src/venues/import/build.js';
import { Progress } from '../src/venues/import/report.js';
import { StoreWriter } from '../src/venues/import/writer.js';
import { buildIndex } from '../src/venues/spatial-index.js';
import { loadStore, type StoreHandle } from '../src/venues/store.js';
import { FORMAT_VERSION, writeCurrent } from '../src/venues/store-layout.js';
import { syntheticVenues } from './lib/synthetic-venues.js';
import { mulberry32 as rng } from './lib/rng.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { benchFlags } from '../src/devkit/flags.js';

/** --build/--serve/--root/--records are the child runs' own flags (one size per process). */
const flag = benchFlags({ sizes: 'string', queries: 'string', 'records-max': 'string', 'no-nyc': 'boolean', 'no-doc': 'boolean',
  build: 'string', serve: 'string', root: 'string', records: 'boolean' },
  'node dist/bench/venues.js [--sizes 1e6,1e7,1e8] [--queries 20000] [--records-max 1e6] [--no-nyc] [--no-doc]');

const NYC = '/work/shared/data/vd/nyc-venues.jsonl.gz';
const say = (msg: string): void => { process.stderr.write(`[bench:venues] ${msg}\n`); };

interface Row { dataset: string; n: number; records: boolean; build_s: number; ram_b: number; disk_b: number; rss_mb: number; peak_mb: number; load_s: number; ready_s: number; p50_us: number; p99_us: number; mean_hits: number }


/** Query points ~30 m from random venues: where devices actually are. */
function queryPoints(lat: ArrayLike<number>, lon: ArrayLike<number>, n: number, q: number): Float64Array {
  const r = rng(7);
  const pts = new Float64Array(new SharedArrayBuffer(q * 16));
  for (let i = 0; i < q; i++) {
    const j = Math.floor(r() * n);
    pts[2 * i] = lat[j] + (r() - 0.5) * 0.0005; pts[2 * i + 1] = lon[j] + (r() - 0.5) * 0.0007;
  }
  return pts;
}

const WORKER = `import { parentPort, workerData } from 'node:worker_threads';
const { h, pts, records, spatial, store } = workerData;
const t0 = performance.now();
let near;
if (records) { const s = (await import(store)).openStore(h); near = (la, lo) => s.near(la, lo, 100, 50).length; }
else { const m = await import(spatial); const ix = m.openIndex(h.index); near = (la, lo) => m.nearIds(ix, la, lo, 100, 50).length; }
near(pts[0], pts[1]);
const readyMs = performance.now() - t0;
const q = pts.length / 2, warm = Math.min(2000, q >> 2), times = new Float64Array(q - warm);
let hits = 0;
for (let i = 0; i < warm; i++) hits += near(pts[2 * i], pts[2 * i + 1]);
hits = 0;
for (let i = warm; i < q; i++) { const a = performance.now(); hits += near(pts[2 * i], pts[2 * i + 1]); times[i - warm] = performance.now() - a; }
times.sort();
parentPort.postMessage({ readyMs, p50: times[times.length >> 1] * 1000, p99: times[Math.floor(times.length * 0.99)] * 1000, hits: hits / times.length });`;

async function queryInWorker(h: StoreHandle, pts: Float64Array, records: boolean) {
  const base = import.meta.url;
  const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`), {
    workerData: { h, pts, records, spatial: new URL('../src/venues/spatial-index.js', base).href, store: new URL('../src/venues/store.js', base).href },
  });
  const res = await new Promise<{ readyMs: number; p50: number; p99: number; hits: number }>((ok, ko) => { w.once('message', ok); w.once('error', ko); });
  await w.terminate();
  return res;
}

async function dirBytes(dir: string): Promise<number> {
  let b = 0;
  for (const f of await readdir(dir, { recursive: true })) { const s = statSync(join(dir, f)); if (s.isFile()) b += s.blocks * 512; }
  return b;
}

/** Builds one size in this (child) process; a second child then loads and queries it like a server would. */
async function buildSize(n: number, recordsMax: number, root: string): Promise<{ build_s: number; peak_mb: number; disk_b: number; records: boolean }> {
  {
    say(`${n.toExponential(0)}: generating`);
    const { lat, lon } = syntheticVenues(n, Float32Array);
    const records = n <= recordsMax;
    const t0 = performance.now();
    const version = 'v-bench';
    const dir = join(root, version);
    if (records) {
      const w = await StoreWriter.create(dir, new Progress('jsonl', 'synthetic', true));
      for (let i = 0; i < n; i++) {
        w.add({ id: `s${i}`, name: `Venue ${i}`, lat: lat[i], lon: lon[i], type_id: 426, type: 'Café', category: 'Dining and Drinking', sub_category: 'Café', radius: 10, popularity: i % 50, address: { city: 'Synthetic', country: 'Nowhere', formatted_city: 'Synthetic' } }, i + 1);
      }
      await w.finish({ format: 'jsonl', file: 'synthetic' });
    } else {
      say(`${n.toExponential(0)}: building index (index-only)`);
      const index = buildIndex(lat, lon, n);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'index.bin'), new Uint8Array(index));
      await writeFile(join(dir, 'meta.json'), JSON.stringify({ format_version: FORMAT_VERSION, count: n, bbox: [-180, -90, 180, 90], source: { format: 'synthetic', file: '' }, built_at: new Date().toISOString(), index_bytes: index.byteLength }));
    }
    const build = (performance.now() - t0) / 1000;
    await writeCurrent(root, version);
    say(`${n.toExponential(0)}: built in ${build.toFixed(1)} s`);
    return { build_s: build, peak_mb: process.resourceUsage().maxRSS / 1024, disk_b: (await dirBytes(dir)) / n, records };
  }
}

/** The server's view: a fresh process loads the store, a worker queries it; RSS is then the store's. */
async function serveSize(n: number, queries: number, root: string, records: boolean): Promise<Row> {
  const t1 = performance.now();
  const h = await loadStore(root);
  const load = (performance.now() - t1) / 1000;
  const rss = process.memoryUsage().rss;
  const { lat, lon } = syntheticVenues(n, Float32Array); // same seed: query points near the same venues
  const pts = queryPoints(lat, lon, n, queries);
  say(`${n.toExponential(0)}: loaded in ${load.toFixed(2)} s; querying`);
  return row(`synthetic ${n.toExponential(0)}`, n, records, 0, h, 0, rss, load, await queryInWorker(h, pts, records));
}

function row(dataset: string, n: number, records: boolean, build: number, h: StoreHandle, disk: number, rss: number, load: number, q: { readyMs: number; p50: number; p99: number; hits: number }): Row {
  return {
    dataset, n, records, build_s: build, ram_b: h.index.byteLength / n, disk_b: disk / n, rss_mb: rss / 2 ** 20,
    peak_mb: process.resourceUsage().maxRSS / 1024, load_s: load, ready_s: load + q.readyMs / 1000, p50_us: q.p50, p99_us: q.p99, mean_hits: q.hits,
  };
}

async function runNyc(queries: number): Promise<Row[]> {
  const root = await mkdtemp(join(tmpdir(), 'dwell-bench-nyc-'));
  try {
    const rep = await runImport({ format: 'jsonl', file: NYC, out: root, quiet: true });
    const rss = process.memoryUsage().rss;
    const t1 = performance.now();
    const h = await loadStore(root);
    const load = (performance.now() - t1) / 1000;
    const s = (await import('../src/venues/store.js')).openStore(h);
    const vs = Array.from({ length: h.count }, (_, i) => s.get(i)!);
    const pts = queryPoints(vs.map((v) => v.lat), vs.map((v) => v.lon), h.count, queries);
    const disk = await dirBytes(join(root, rep.version));
    return [
      row('NYC vd file, with records', h.count, true, rep.seconds, h, disk, rss, load, await queryInWorker(h, pts, true)),
      row('NYC vd file, index only', h.count, false, rep.seconds, h, disk, rss, load, await queryInWorker(h, pts, false)),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function table(rows: Row[]): string {
  const f = (x: number, d = 1) => x.toFixed(d);
  const head = '| dataset | venues | records | build s | index B/venue (RAM) | disk B/venue | server RSS MB | peak RSS MB (build) | loadStore s | ready s | p50 µs | p99 µs | mean hits |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  return [head, ...rows.map((r) => `| ${r.dataset} | ${r.n.toLocaleString('en')} | ${r.records ? 'LMDB' : 'index only'} | ${f(r.build_s)} | ${f(r.ram_b)} | ${f(r.disk_b)} | ${f(r.rss_mb, 0)} | ${f(r.peak_mb, 0)} | ${f(r.load_s, 2)} | ${f(r.ready_s, 2)} | ${f(r.p50_us)} | ${f(r.p99_us)} | ${f(r.mean_hits)} |`)].join('\n');
}

async function main(): Promise<void> {
  const queries = flag.num('queries', 20000);
  const recordsMax = flag.num('records-max', 1e6);
  if (flag.has('build')) {
    process.stdout.write(JSON.stringify(await buildSize(flag.num('build', 0), recordsMax, flag.str('root', ''))) + '\n');
    return;
  }
  if (flag.has('serve')) {
    process.stdout.write(JSON.stringify(await serveSize(flag.num('serve', 0), queries, flag.str('root', ''), flag.has('records'))) + '\n');
    return;
  }
  const sizes = flag.str('sizes', '1e6,1e7').split(',').map(Number);
  const rows: Row[] = [];
  if (!flag.has('no-nyc') && existsSync(NYC)) { say('NYC file'); rows.push(...(await runNyc(queries))); }
  const child = (args: string[]): any => {
    const c = spawnSync(process.execPath, ['--max-old-space-size=8192', fileURLToPath(import.meta.url), ...args, '--queries', String(queries), '--records-max', String(recordsMax)], { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
    if (c.status !== 0) throw new Error(`bench child ${args.join(' ')} failed (exit ${c.status ?? c.signal})`);
    return JSON.parse(c.stdout.toString().trim().split('\n').pop()!);
  };
  for (const n of sizes) {
    const root = await mkdtemp(join(tmpdir(), 'dwell-bench-'));
    try {
      const b = child(['--build', String(n), '--root', root]);
      const r = child(['--serve', String(n), '--root', root, ...(b.records ? ['--records'] : [])]) as Row;
      rows.push({ ...r, build_s: b.build_s, disk_b: b.disk_b, peak_mb: Math.max(b.peak_mb, r.peak_mb) });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  say('done');
  const report = `Venue store, ${queries} radius queries of 100 m (≤ 50 results) in a worker thread; sizes above ${recordsMax.toExponential(0)} are index-only (no LMDB records).\n\n`
    + `${table(rows)}\n\nTargets: 100M index ≤ 2.5 GB resident and built in ≤ 90 s; p99 ≤ 50 µs; ready ≤ 3 s at 10M.`;
  console.log(`\n${report}`);
  writePerformanceSection('venues', report);
}

await main();
