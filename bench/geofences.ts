/**
 * Geofence benchmark (`node dist/bench/geofences.js [--fences 1000000] [--polygons 100000] [--seconds 5] [--no-http] [--no-doc]`).
 *
 * 1. Point evaluations on one core: a FenceIndex over 1M circles and 100k polygons around eight
 *    cities (seeded), queried with fixes drawn from the same cities; each evaluation is the index
 *    query plus the exact test of every candidate with its accuracy circle.
 * 2. Index upkeep: single upserts into the full index (what a worker replays from the change log).
 * 3. Creates and updates per second through the HTTP API of a real `dwell serve` child process,
 *    signed per contract §1, closed loop, bounded duration.
 */
import { performance } from 'node:perf_hooks';
import { FenceIndex } from '../src/geofences/fence-index.js';
import { circle, preparePolygon, type Shape } from '../src/geofences/geometry.js';
import { M_PER_DEG } from '../src/geo/distance.js';
import { bodySha256, signature } from '../src/signing.js';
import { rng, type Rng } from './lib/rng.js';
import { closedLoop, type LoadResult } from './lib/load.js';
import { markdownTable, fmtInt, fmtMs } from './lib/table.js';
import { processCpuSeconds } from './lib/cpu.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { DwellAdmin } from '../src/client/index.js';
import { startDwellNode } from '../src/devkit/dwell-node.js';
import { benchFlags } from '../src/devkit/flags.js';
import { bulkFigures } from './geofences-bulk.js';
import { Conn } from './geofences-conn.js';

const flag = benchFlags({ fences: 'string', polygons: 'string', seconds: 'string', concurrency: 'string', cities: 'string', 'no-http': 'boolean', 'no-doc': 'boolean', 'no-bulk': 'boolean', 'bulk-only': 'boolean' },
  'node dist/bench/geofences.js [--fences 1000000] [--polygons 100000] [--seconds 5] [--concurrency 128] [--cities 8] [--no-http] [--no-bulk] [--bulk-only] [--no-doc]');

const CIRCLES = flag.num('fences', 1_000_000);
const POLYGONS = flag.num('polygons', 100_000);
const SECONDS = flag.num('seconds', 5);
const CONCURRENCY = flag.num('concurrency', 128);

/**
 * The default, 8 cities, is the dense case: 137k fences a metro, a fix covered by ~17 fences (a
 * customer fencing every shop and restaurant). `--cities 64` spreads the same fences over 64 metros
 * (~17k each, ~2 fences a fix: a chain's stores and campaign zones), the more usual deployment.
 */
const CITIES = [
  [48.8566, 2.3522], [51.5074, -0.1278], [40.7128, -74.006], [35.6762, 139.6503],
  [-23.5505, -46.6333], [-33.8688, 151.2093], [19.076, 72.8777], [-17.7134, 178.065], // Suva: near the antimeridian
];
for (let i = CITIES.length, r = rng(5); i < flag.num('cities', 8); i++) CITIES.push([r.float(-45, 60), r.float(-180, 180)]);
/** Metres of spread around a city centre (σ of each axis): a metropolitan area. */
const SPREAD_M = 12_000;

function near(r: Rng): [number, number] {
  const [lat, lon] = r.pick(CITIES);
  const dy = r.gauss() * SPREAD_M, dx = r.gauss() * SPREAD_M;
  let x = lon + dx / (M_PER_DEG * Math.cos((lat * Math.PI) / 180));
  if (x > 180) x -= 360;
  return [lat + dy / M_PER_DEG, x];
}

/** Radius 20–500 m, log-uniform: shop fronts to campuses. */
const radius = (r: Rng) => Math.exp(r.float(Math.log(20), Math.log(500)));

/** A star-shaped ring with every angular gap under 180° is simple: 4–12 vertices, 30–300 m across. */
function polygon(r: Rng): Shape {
  const [lat, lon] = near(r);
  const n = r.int(4, 12), size = r.float(30, 300);
  const angles = Array.from({ length: n }, (_, i) => ((i + r.float(0, 0.8)) * 2 * Math.PI) / n);
  const k = M_PER_DEG * Math.cos((lat * Math.PI) / 180);
  return preparePolygon(angles.map((a) => {
    const m = size * r.float(0.5, 1);
    return { lat: lat + (m * Math.sin(a)) / M_PER_DEG, long: ((lon + (m * Math.cos(a)) / k + 540) % 360) - 180 };
  }), '/bench');
}

function buildIndex(): { index: FenceIndex; ms: number } {
  const r = rng(42);
  const shapes: Shape[] = [];
  for (let i = 0; i < CIRCLES; i++) { const [lat, lon] = near(r); shapes.push(circle(lat, lon, radius(r))); }
  for (let i = 0; i < POLYGONS; i++) shapes.push(polygon(r));
  const t0 = performance.now();
  const index = new FenceIndex();
  shapes.forEach((s, i) => index.add(`gf_${i}`, s, Infinity));
  index.rebuild();
  return { index, ms: performance.now() - t0 };
}

/**
 * Evaluations of seeded fixes, in 5 slices of SECONDS / 5: the CPU-time rate of each slice (this
 * machine is shared, so wall rates move with the neighbours), reported as median and range.
 */
function evaluations(index: FenceIndex, accuracy: number) {
  const r = rng(7);
  const pts = new Float64Array(2 * 65_536);
  for (let i = 0; i < pts.length; i += 2) [pts[i], pts[i + 1]] = near(r);
  let n = 0, hits = 0, inside = 0;
  const now = Date.now(), rates: number[] = [], walls: number[] = [];
  for (let slice = 0; slice < 5; slice++) {
    const n0 = n, t0 = performance.now(), end = t0 + SECONDS * 200, cpu0 = process.cpuUsage();
    while (performance.now() < end) {
      for (let j = 0; j < 4096; j++, n++) {
        const i = (n & 65_535) << 1;
        const h = index.query(pts[i], pts[i + 1], accuracy, now);
        hits += h;
        for (let k = 0; k < h; k++) inside += index.hitClass[k] === 1 ? 1 : 0;
      }
    }
    rates.push((n - n0) / cpuSeconds(cpu0));
    walls.push((n - n0) / ((performance.now() - t0) / 1000));
  }
  const mid = (a: number[]) => [...a].sort((x, y) => x - y)[2];
  return { perCpu: mid(rates), range: `${fmtInt(Math.min(...rates))}–${fmtInt(Math.max(...rates))}`, rate: mid(walls), hits: hits / n, inside: inside / n };
}

/** A fixed arithmetic loop, so figures from a loaded or slow machine can be read in proportion. */
function calibrate(): number {
  const a = new Float64Array(1 << 20).map((_, i) => (i * 7919) % 1000);
  let sum = 0;
  const c0 = process.cpuUsage();
  for (let k = 0; k < 20; k++) for (let i = 0; i < a.length; i++) sum += Math.sqrt(a[i] * a[i] + a[(i * 7) & ((1 << 20) - 1)]);
  return (cpuSeconds(c0) * 1e9) / (20 * a.length) + (sum < 0 ? 1 : 0);
}

/** CPU seconds this process used since `from` (all threads: GC helpers count against us). */
const cpuSeconds = (from: NodeJS.CpuUsage) => { const d = process.cpuUsage(from); return (d.user + d.system) / 1e6; };

function upserts(index: FenceIndex): { rate: number; tiers: string } {
  const r = rng(9);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    const [lat, lon] = near(r);
    index.upsert(`gf_${r.int(0, CIRCLES - 1)}`, circle(lat, lon, radius(r)), Infinity);
    n++;
  }
  const t = index.tiers;
  return { rate: n / ((performance.now() - t0) / 1000), tiers: `bulk ${fmtInt(t.bulk)}, mid ${fmtInt(t.mid)}, buffer ${t.buffer}, dead ${fmtInt(t.dead)}` };
}

type Phase = LoadResult & { serverCpuS: number; clientCpuS: number };

const ADMIN_TOKEN = 'bench-geofences-admin-token';

async function http(): Promise<{ create: Phase; update: Phase }> {
  const dwell = await startDwellNode({ name: 'dwell', state: 'lmdb', adminToken: ADMIN_TOKEN, env: { DWELL_WORKERS: '1' } });
  try {
    const app = await new DwellAdmin({ url: dwell.url, token: ADMIN_TOKEN }).createApp({ name: 'bench geofences', delivery: { method: 'sync' } });
    const conns = Array.from({ length: CONCURRENCY }, () => new Conn(dwell.port));
    const idle = [...conns];
    const base = `/v2/apps/${app.app_key}/geofences`;
    const r = rng(11);
    const ids: string[] = [];
    // Signed per request with a fresh timestamp, as a customer would (contract §1).
    const send = (path: string, body: unknown): Promise<[number, string]> => {
      const bytes = Buffer.from(JSON.stringify(body));
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = signature(app.app_secret, ts, 'POST', path, bodySha256(bytes));
      const head = `POST ${path} HTTP/1.1\r\nHost: dwell\r\nContent-Type: application/json\r\nX-App-Key: ${app.app_key}\r\n`
        + `X-Timestamp: ${ts}\r\nX-Signature: ${sig}\r\nContent-Length: ${bytes.length}\r\n\r\n`;
      const conn = idle.pop()!; // closedLoop keeps at most CONCURRENCY in flight
      return conn.send(head, bytes).finally(() => idle.push(conn));
    };
    // Random positions and ids make every body, and so every signature, unique. TTLs of 10 min or
    // more, so no fence expires during the run and an update of it reads as an error.
    const fence = () => { const [lat, long] = near(r); return { tag: `t${r.int(0, 99)}`, location: { lat, long, radius: Math.round(radius(r)) }, ttl: r.int(600, 86_400) }; };
    const pid = dwell.proc.pid!;
    const measured = async (run: () => Promise<LoadResult>): Promise<Phase> => {
      const cpu0 = processCpuSeconds(pid), me0 = process.cpuUsage();
      const res = await run();
      return { ...res, serverCpuS: processCpuSeconds(pid) - cpu0, clientCpuS: cpuSeconds(me0) };
    };
    const create = await measured(() => closedLoop({
      concurrency: CONCURRENCY, durationMs: SECONDS * 1000,
      send: async () => { const [s, b] = await send(`${base}/create`, fence()); if (s === 200) ids.push(JSON.parse(b)); return s; },
    }));
    const update = await measured(() => closedLoop({
      concurrency: CONCURRENCY, durationMs: SECONDS * 1000,
      send: async () => (await send(`${base}/${r.pick(ids)}/update`, fence()))[0],
    }));
    for (const c of conns) c.close();
    return { create, update };
  } finally {
    await dwell.close();
  }
}

/** 100,000 fences in one app: import, near searches, evaluation a signal (geofences-bulk.ts), its own section. */
async function bulk(): Promise<void> {
  if (flag.has('no-bulk')) return;
  const rows = await bulkFigures(near, radius);
  const table = markdownTable(['measure', 'value', 'notes'], rows, ['left', 'right', 'left']);
  console.log(table);
  writePerformanceSection('geofences-bulk', table);
}

async function main() {
  if (flag.has('bulk-only')) return bulk();
  console.error(`building: ${fmtInt(CIRCLES)} circles + ${fmtInt(POLYGONS)} polygons around ${CITIES.length} cities${CITIES.length > 8 ? '' : ' (dense)'}`);
  const { index, ms } = buildIndex();
  const rows: string[][] = [];
  rows.push(['machine calibration: ns per sqrt-and-load loop step', calibrate().toFixed(1), 'about 1–2 on an idle modern core; scale the rates by it']);
  rows.push(['index build (bulk load + grid)', `${fmtInt(ms)} ms`, `${fmtInt(index.size)} fences around ${CITIES.length} cities${CITIES.length > 8 ? '' : ' (dense)'}`]);
  for (const acc of [0, 20, 100]) {
    const e = evaluations(index, acc);
    rows.push([`point evaluations/s, 1 core, accuracy ${acc} m`, fmtInt(e.perCpu), `per CPU-second, median of 5 (${e.range}); ${fmtInt(e.rate)}/s wall; ${e.hits.toFixed(2)} hits/fix, ${e.inside.toFixed(2)} clearly inside`]);
  }
  const u = upserts(index);
  rows.push(['index upserts/s, 1 core (worker replaying changes)', fmtInt(u.rate), u.tiers]);
  const e = evaluations(index, 20);
  rows.push(['point evaluations/s after the upserts, accuracy 20 m', fmtInt(e.perCpu), `median (${e.range}); ${fmtInt(e.rate)}/s wall; with mid tier and tombstones`]);
  const table = () => markdownTable(['measure', 'value', 'notes'], rows, ['left', 'right', 'left']);
  console.log(table());
  if (flag.has('no-http')) return writePerformanceSection('geofences', table());
  const h = await http();
  for (const [name, res] of [['creates/s through HTTP', h.create], ['updates/s through HTTP', h.update]] as const) {
    const n = res.ok + res.errors;
    rows.push([name, fmtInt(res.rps), `${fmtInt(n / res.serverCpuS)}/s per server CPU-second (${fmtInt((res.serverCpuS / n) * 1e6)} µs each; client ${fmtInt((res.clientCpuS / n) * 1e6)} µs); `
      + `concurrency ${CONCURRENCY} (keep-alive connections), p50 ${fmtMs(res.latency.p50)} ms, p99 ${fmtMs(res.latency.p99)} ms, errors ${res.errors}`]);
  }
  console.log(table());
  writePerformanceSection('geofences', table());
  await bulk();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
