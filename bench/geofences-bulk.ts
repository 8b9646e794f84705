/**
 * Fences by the thousand (issue 42), a phase of bench/geofences.ts: one app with 100,000 circles
 * around the benchmark's cities (seeded), against a real `dwell serve` child (embedded engine):
 * 1. the import: one gzip NDJSON request of 100,000 lines, wall time and server CPU (target ≤ 30 s);
 * 2. `near` searches (radius 1 km, at seeded points), signed GETs one at a time on a keep-alive
 *    connection: the first 2,000 after the import (each fence's record read once), then 2,000 more
 *    in blocks of 20 alternating with as many of the floor, a GET of one fence by id, p50/p99 and
 *    server CPU of each (target p99 ≤ 5 ms); and the same searches in process on a GeofenceStore
 *    (the index query and the page's records, no HTTP), which is the server's own share;
 * 3. a detection's fence evaluation per signal with these fences, in process: events.ts `evaluate`
 *    over batches of 50 fixes of one user walking among them (index query, presence, event
 *    building), beside the index query alone, median and range of 5 slices (target < 50 µs).
 */
import { gzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GeofenceStore } from '../src/geofences/store.js';
import { nearIndex } from '../src/geofences/service.js';
import { nearJson } from '../src/geofences/routes.js';
import { performance } from 'node:perf_hooks';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { circle } from '../src/geofences/geometry.js';
import { evaluate, NO_PRESENCE, type FenceInfo, type Fix } from '../src/geofences/events.js';
import { bodySha256, signature } from '../src/signing.js';
import { DwellAdmin } from '../src/client/index.js';
import { startDwellNode } from '../src/devkit/dwell-node.js';
import { rng, type Rng } from './lib/rng.js';
import { fmtInt, fmtMs } from './lib/table.js';
import { cpuMeter, processCpuSeconds } from './lib/cpu.js';
import { Conn } from './geofences-conn.js';
import { Samples } from './lib/stats.js';

const FENCES = 100_000;
const SEARCHES = 2000;
const ADMIN_TOKEN = 'bench-geofences-bulk-admin-token';

interface Fence { lat: number; long: number; radius: number }

export async function bulkFigures(near: (r: Rng) => [number, number], radius: (r: Rng) => number): Promise<string[][]> {
  const r = rng(17);
  const fences: Fence[] = Array.from({ length: FENCES }, () => { const [lat, long] = near(r); return { lat, long, radius: Math.round(radius(r)) }; });
  const rows: string[][] = [];
  rows.push(...evaluationRows(fences, near));
  rows.push(...await storeRows(fences, near));
  rows.push(...await httpRows(fences, near));
  return rows;
}

async function httpRows(fences: Fence[], near: (r: Rng) => [number, number]): Promise<string[][]> {
  const dwell = await startDwellNode({ name: 'dwell', state: 'lmdb', adminToken: ADMIN_TOKEN, env: { DWELL_WORKERS: '1' } });
  try {
    const app = await new DwellAdmin({ url: dwell.url, token: ADMIN_TOKEN }).createApp({ name: 'bench fences in bulk', delivery: { method: 'sync' } });
    const base = `/v2/apps/${app.app_key}/geofences`;
    const send = async (method: string, pathAndQuery: string, bytes = Buffer.alloc(0), headers: Record<string, string> = {}) => {
      const ts = String(Math.floor(Date.now() / 1000));
      const res = await fetch(dwell.url + pathAndQuery, {
        method, body: bytes.length ? bytes : undefined,
        headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': signature(app.app_secret, ts, method, pathAndQuery, bodySha256(bytes)), ...headers },
      });
      return { status: res.status, body: await res.json() as any };
    };
    const lines = fences.map((f, i) => JSON.stringify({ external_id: `store-${i}`, tag: `t${i % 100}`, location: f, ttl: 0, metadata: { n: i } })).join('\n');
    const body = gzipSync(lines);
    const cpu0 = processCpuSeconds(dwell.proc.pid!), t0 = performance.now();
    const imported = await send('POST', `${base}/import`, body, { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
    const importS = (performance.now() - t0) / 1000, importCpu = processCpuSeconds(dwell.proc.pid!) - cpu0;
    if (imported.status !== 200 || imported.body.created !== FENCES) throw new Error(`import: ${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`);
    const one = (await send('GET', `${base}?external_id=store-0`)).body.geofences[0].id as string;
    // The GETs below on one keep-alive connection (geofences-conn.ts): fetch's own CPU was a
    // share of every latency measured, and of the machine the server runs on.
    const conn = new Conn(dwell.port);
    const get = (pathAndQuery: string): Promise<[number, string]> => {
      const ts = String(Math.floor(Date.now() / 1000));
      return conn.send(`GET ${pathAndQuery} HTTP/1.1\r\nHost: dwell\r\nX-App-Key: ${app.app_key}\r\nX-Timestamp: ${ts}\r\n`
        + `X-Signature: ${signature(app.app_secret, ts, 'GET', pathAndQuery, bodySha256(Buffer.alloc(0)))}\r\n\r\n`, Buffer.alloc(0));
    };
    const r = rng(23);
    const search = () => { const [lat, long] = near(r); return `${base}?near=${lat.toFixed(6)},${long.toFixed(6)}&radius=1000&limit=100`; };
    const kinds = { search, floor: () => `${base}/${one}` };
    type Kind = keyof typeof kinds;
    const stats = () => ({ s: new Samples(), found: 0, cpu: 0, n: 0 });
    const timed = async (kind: Kind, into: ReturnType<typeof stats>) => {
      const q = kinds[kind]();
      const t = performance.now();
      const [status, text] = await get(q);
      into.s.add(performance.now() - t); // the answer's last byte, before it is parsed
      if (status !== 200) throw new Error(`${kind}: ${status} ${text.slice(0, 300)}`);
      into.found += JSON.parse(text).geofences?.length ?? 1;
      into.n++;
    };
    // The first searches after the start read each fence's record once (near-cache.ts): reported
    // apart, then the steady state, the searches alternated with the floor in blocks of 20 so that
    // both see the same machine, each block's server CPU (/proc, 10 ms ticks) summed by kind.
    const cold = stats();
    for (let i = 0; i < SEARCHES; i++) await timed('search', cold);
    const runs = { search: stats(), floor: stats() };
    const meter = cpuMeter({ server: dwell.proc.pid! });
    for (let block = 0; block < (2 * SEARCHES) / 20; block++) {
      const kind: Kind = block % 2 ? 'floor' : 'search';
      const c0 = processCpuSeconds(dwell.proc.pid!);
      for (let i = 0; i < 20; i++) await timed(kind, runs[kind]);
      runs[kind].cpu += processCpuSeconds(dwell.proc.pid!) - c0;
    }
    const machine = meter.end();
    conn.close();
    const c = cold.s.summary(), s = runs.search.s.summary(), f = runs.floor.s.summary();
    const us = (x: ReturnType<typeof stats>) => fmtInt((x.cpu / x.n) * 1e6);
    return [
      ['import of 100,000 fences (one gzip NDJSON request)', `${importS.toFixed(1)} s`, `${fmtInt(FENCES / importS)} lines/s; server CPU ${importCpu.toFixed(1)} s; ${(body.length / 1e6).toFixed(1)} MB gzip (${(lines.length / 1e6).toFixed(1)} MB); target ≤ 30 s`],
      ['`near` search, radius 1 km, 100,000 fences', `p99 ${fmtMs(s.p99)} ms`, `p50 ${fmtMs(s.p50)} ms, max ${fmtMs(s.max)} ms; ${(runs.search.found / runs.search.n).toFixed(1)} fences a search (limit 100); server CPU ${us(runs.search)} µs a search; ${fmtInt(SEARCHES)} signed GETs one at a time on a keep-alive connection, in blocks of 20 alternating with the floor's; target p99 ≤ 5 ms`],
      ['floor: GET of one fence by id, same run', `p99 ${fmtMs(f.p99)} ms`, `p50 ${fmtMs(f.p50)} ms; server CPU ${us(runs.floor)} µs a GET: signing, HTTP and the client's share of every GET above. Machine over both: ${machine.machine.toFixed(2)} of ${machine.cores} cores busy, ${machine.others.toFixed(2)} of them other processes`],
      ['`near` search, the first 2,000 after the import', `p99 ${fmtMs(c.p99)} ms`, `p50 ${fmtMs(c.p50)} ms, max ${fmtMs(c.max)} ms: each fence's record read and encoded once, then answered from near-cache.ts`],
    ];
  } finally {
    await dwell.close();
  }
}

/** `store.near` in process over the same fences: what a search costs the server's thread. */
async function storeRows(fences: Fence[], near: (r: Rng) => [number, number]): Promise<string[][]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-near-'));
  const store = new GeofenceStore(dir, { noSync: true, nearIndex });
  try {
    const t0 = performance.now();
    await store.upsertMany('bench', fences.map((f, i) => ({
      line: i + 1, external_id: `store-${i}`, patch: {},
      input: { tag: `t${i % 100}`, location: f, ttl: 0, push_text: null, dwell: 0, metadata: { n: i }, external_id: `store-${i}` },
    })));
    const importS = (performance.now() - t0) / 1000;
    const r = rng(31);
    const rows: string[][] = [];
    for (const limit of [100, 10]) {
      const s = new Samples();
      let found = 0;
      for (let i = 0; i < 2 * SEARCHES; i++) {
        const [lat, long] = near(r);
        const t = performance.now();
        const page = store.near('bench', { lat, long, radius: 1000, limit });
        const json = nearJson(page);
        if (i >= SEARCHES) { s.add(performance.now() - t); found += page.items.length + 0 * json.length; }
      }
      const m = s.summary();
      rows.push([`\`near\` in process (store.near), limit ${limit}`, `p99 ${fmtMs(m.p99)} ms`, `p50 ${fmtMs(m.p50)} ms; ${(found / SEARCHES).toFixed(1)} fences a page; the index query, the page's records (near-cache.ts) and its JSON, no HTTP, after ${fmtInt(SEARCHES)} searches of warm-up`]);
    }
    rows.push(['import in process (store.upsertMany, no fsync)', `${importS.toFixed(1)} s`, 'the same 100,000 lines, validated beforehand: the store\'s share of the import']);
    return rows;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** µs a fix: `evaluate` (what a detection runs per user) and the index query alone, 5 slices of about a second. */
function evaluationRows(fences: Fence[], near: (r: Rng) => [number, number]): string[][] {
  const index = new FenceIndex();
  const info = new Map<string, FenceInfo>();
  fences.forEach((f, i) => {
    index.add(`gf_${i}`, circle(f.lat, f.long, f.radius), Infinity);
    info.set(`gf_${i}`, { tag: `t${i % 100}`, push_text: null, dwell: i % 4 === 0 ? 300 : 0, metadata: { n: i } });
  });
  index.rebuild();
  const view = { index, info: (id: string) => info.get(id) };
  const r = rng(29);
  // A user's walk: 50 fixes a request, 15 s apart, each step within 100 m of the last.
  const batches: Fix[][] = Array.from({ length: 256 }, (_, b) => {
    let [lat, long] = near(r);
    return Array.from({ length: 50 }, (_, i) => {
      lat += (r.float(-1, 1) * 100) / 111_195; long += (r.float(-1, 1) * 100) / 80_000;
      return { timestamp: new Date(Date.UTC(2026, 0, 1) + (b * 50 + i) * 15_000).toISOString(), lat, long, accuracy: 20 };
    });
  });
  const now = Date.UTC(2026, 0, 1);
  let events = 0;
  const evalRate = slices(() => { const b = batches[r.int(0, batches.length - 1)]; events += evaluate(view, NO_PRESENCE, b, now).events.length; return b.length; });
  const queryRate = slices(() => { const b = batches[r.int(0, batches.length - 1)]; for (const f of b) index.query(f.lat, f.long, 20, now); return b.length; });
  return [
    ['fence evaluation a signal, 100,000 fences (events.ts evaluate)', `${evalRate.median.toFixed(2)} µs`, `median of 5 CPU-time slices (${evalRate.range} µs); 50-fix requests of a walking user, presence, entry/exit/dwell events built; target < 50 µs`],
    ['floor: the index query alone, same fixes', `${queryRate.median.toFixed(2)} µs`, `median (${queryRate.range} µs); ${(events / Math.max(1, evalRate.fixes)).toFixed(3)} events a fix`],
  ];
}

/** µs of CPU a fix over 5 slices of about a second each (after one slice of warm-up). */
function slices(run: () => number): { median: number; range: string; fixes: number } {
  const us: number[] = [];
  let fixes = 0;
  for (let s = 0; s < 6; s++) {
    let n = 0;
    const c0 = process.cpuUsage(), t0 = performance.now();
    while (performance.now() - t0 < 1000) n += run();
    const d = process.cpuUsage(c0);
    if (s > 0) { us.push((d.user + d.system) / n); fixes += n; }
  }
  us.sort((a, b) => a - b);
  return { median: us[2], range: `${us[0].toFixed(2)}–${us[4].toFixed(2)}`, fixes };
}
