/**
 * Detection + ranking latency of one 10-fix event, inside a worker thread, against a 10M-venue
 * synthetic store:   node dist/bench/detect.js [--venues 1e7] [--events 20000] [--keep DIR] [--no-doc]
 *
 * The store: 10M venues clustered like cities (Zipf-sized clusters, Gaussian spread, 5 % rural;
 * the same recipe as bench/venues.ts, whose generator is not exported), in the real index format.
 * LMDB records are written for every venue a query can reach (the nearest 44 within 1.5 km of
 * each query point): writing 10M records would take most of the run and change nothing the
 * queries read. The user store is a real LMDB environment (noSync) in a temp dir.
 *
 * Events: 10 fixes over 20-40 minutes around a point ~30 m from a random venue (accuracy 10-40 m,
 * one multipath jump in five events), a Wi-Fi scan on half the fixes, a joined network on some.
 * Users repeat (2,000 users), so history (kernel and labels), pooled networks and Wi-Fi positioning take part once warm.
 *
 * Two figures per event: `core` = detection and ranking (robust centre, candidates from the
 * 10M index, every factor including history, pooled networks and positioning); `request` = the whole
 * detectStructured call, i.e. plus the user's LMDB read-modify-write transaction.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { buildIndex, nearIds, openIndex } from '../src/venues/spatial-index.js';
import { openRecords } from '../src/venues/records.js';
import { FORMAT_VERSION, RECORDS, INDEX, META, writeCurrent } from '../src/venues/store-layout.js';
import { loadStore, openStore, type StoreHandle } from '../src/venues/store.js';
import type { Venue } from '../src/venues/types.js';
import { syntheticVenues } from './lib/synthetic-venues.js';
import { mulberry32 as rng } from './lib/rng.js';
import { M_PER_DEG, mPerDegLon } from '../src/geo/distance.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { benchFlags } from '../src/devkit/flags.js';

const flag = benchFlags({ venues: 'string', events: 'string', keep: 'string', 'no-doc': 'boolean' },
  'node dist/bench/detect.js [--venues 1e7] [--events 20000] [--keep DIR] [--no-doc]');

const say = (msg: string): void => { process.stderr.write(`[bench:detect] ${msg}\n`); };


const TYPES: Array<[string, string, number]> = [
  ['Café', 'Dining and Drinking', 10], ['Restaurant', 'Dining and Drinking', 15], ['Bar', 'Dining and Drinking', 12],
  ['Clothing Store', 'Retail', 15], ['Office', 'Business and Professional Services', 20], ['Park', 'Landmarks and Outdoors', 120],
  ['Gym', 'Sports and Recreation', 20], ['Hotel', 'Travel and Transportation', 35], ['Grocery Store', 'Retail', 20],
];

interface Place { lat: number; lon: number; venue: number }

async function build(root: string, n: number, places: number): Promise<Place[]> {
  say(`generating ${n.toExponential(0)} venues`);
  const { lat, lon } = syntheticVenues(n, Float64Array);
  const r = rng(7);
  const pts: Place[] = [];
  for (let q = 0; q < places; q++) {
    const i = Math.floor(r() * n);
    const a = 2 * Math.PI * r(), d = 30 * Math.sqrt(r());
    pts.push({ lat: lat[i] + (d * Math.sin(a)) / M_PER_DEG, lon: lon[i] + (d * Math.cos(a)) / mPerDegLon(lat[i]), venue: i });
  }
  const dir = path.join(root, 'v-bench');
  fs.mkdirSync(dir, { recursive: true });
  say('building the index');
  const index = buildIndex(lat, lon, n);
  fs.writeFileSync(path.join(dir, INDEX), new Uint8Array(index));
  const fb = openIndex(index);
  const need = new Set<number>();
  for (const p of pts) for (const i of nearIds(fb, p.lat, p.lon, 1500, 44)) need.add(i);
  say(`writing ${need.size} records (every venue a query can reach)`);
  const db = openRecords(path.join(dir, RECORDS), false);
  await db.env.transaction(() => {
    for (const i of need) {
      const [type, category, radius] = TYPES[i % TYPES.length];
      const v: Venue = { id: `s${i}`, name: `${type} ${i}`, lat: lat[i], lon: lon[i], type_id: 1 + (i % TYPES.length), type, category, sub_category: type,
        radius, popularity: i % 50, address: { city: 'Synthetic', country: 'Nowhere' } };
      void db.venues.put(i, v);
      void db.ids.put(v.id, i);
    }
  });
  await db.env.close();
  fs.writeFileSync(path.join(dir, META), JSON.stringify({ format_version: FORMAT_VERSION, count: n, bbox: [-180, -90, 180, 90],
    source: { format: 'synthetic', file: '' }, built_at: new Date().toISOString(), index_bytes: index.byteLength }));
  await writeCurrent(root, 'v-bench');
  fs.writeFileSync(path.join(root, 'places.json'), JSON.stringify(pts));
  return pts;
}

async function main(): Promise<void> {
  const n = flag.num('venues', 1e7);
  const events = flag.num('events', 20000);
  const keep = flag.str('keep', '');
  const root = keep || fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-detect-'));
  let places: Place[];
  if (keep && fs.existsSync(path.join(root, 'places.json'))) { say(`reusing ${root}`); places = JSON.parse(fs.readFileSync(path.join(root, 'places.json'), 'utf8')); }
  else { const t = performance.now(); places = await build(root, n, 2000); say(`store built in ${((performance.now() - t) / 1000).toFixed(1)} s`); }
  const handle = await loadStore(root);
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-bench-detect-users-'));
  const w = new Worker(new URL(import.meta.url), { workerData: { handle, places, events, userDir } });
  const res = await new Promise<Record<string, number>>((ok, ko) => { w.once('message', ok); w.once('error', ko); });
  await w.terminate();
  fs.rmSync(userDir, { recursive: true, force: true });
  if (!keep) fs.rmSync(root, { recursive: true, force: true });
  console.log(JSON.stringify({ venues: handle.count, ...res }, null, 2));
  const table = `| ${handle.count.toExponential(0)} venues, one 10-fix event, in a worker | median | p99 | max |\n|---|---:|---:|---:|\n` +
    `| detection + ranking (core) | ${res.core_p50_ms} ms | ${res.core_p99_ms} ms | ${res.core_max_ms} ms |\n` +
    `| whole detectStructured (+ user LMDB transaction, noSync) | ${res.request_p50_ms} ms | ${res.request_p99_ms} ms | ${res.request_max_ms} ms |`;
  console.log(`\n${table}`);
  writePerformanceSection('detect', `${table}\n\n${res.events} events after ${res.warm_up} of warm-up.`);
}

async function worker(): Promise<void> {
  const { detectStructured } = await import('../src/detect/index.js');
  const { assess } = await import('../src/detect/assess.js');
  const { DEFAULT_PARAMS } = await import('../src/detect/params.js');
  const { fixesOf } = await import('../src/detect/fixes.js');
  const { wifiOf } = await import('../src/detect/evidence/wifi.js');
  const { openUserStore } = await import('../src/users/store.js');
  const { handle, places, events, userDir } = workerData as { handle: StoreHandle; places: Place[]; events: number; userDir: string };
  const venues = openStore(handle);
  const users = openUserStore(userDir);
  const r = rng(11);
  const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const makeEvent = (k: number) => {
    const user = k % 2000;
    const p = places[(user * 7 + (k % 5)) % places.length];
    const t0 = Date.parse('2024-05-06T08:00:00Z') + k * 3_600_000;
    const dur = (20 + r() * 20) * 60_000;
    const kx = mPerDegLon(p.lat);
    const data = [];
    const jump = r() < 0.2 ? Math.floor(r() * 10) : -1;
    for (let i = 0; i < 10; i++) {
      const acc = 10 + r() * 30;
      let dx = (r() - 0.5) * acc, dy = (r() - 0.5) * acc;
      if (i === jump) { dx += 250; dy -= 120; }
      const s: Record<string, unknown> = { timestamp: iso(t0 + (dur * i) / 9), location: { lat: p.lat + dy / M_PER_DEG, long: p.lon + dx / kx, accuracy: acc, speed: 0 } };
      if (i % 2 === 0) s.wifi_scan = Array.from({ length: 5 }, (_, j) => ({ ssid: `Net${(p.venue + j) % 997}`, bssid: `02:00:${(p.venue % 256).toString(16).padStart(2, '0')}:00:00:${j.toString(16).padStart(2, '0')}`, strength: -55 - 7 * j, age: 1000 }));
      if (k % 3 === 0) s.active_wifi = { ssid: `Café ${p.venue}`, bssid: `02:00:${(p.venue % 256).toString(16).padStart(2, '0')}:00:00:00`, strength: -50 };
      data.push(s);
    }
    return { user: `bench-user-${user}`, ev: { event_id: `e${k}`, type: 'visit' as const, start_time: iso(t0), end_time: iso(t0 + dur), data } };
  };
  const ctx = { venues, users, estimateAddress: () => ({}), app: { app_key: 'bench', confirm_dwell_s: 300 }, now: Date.now(), params: DEFAULT_PARAMS };
  const reqTimes: number[] = [], coreTimes: number[] = [];
  let sink = 0;
  const warm = Math.min(5000, Math.floor(events / 4));
  for (let k = 0; k < events + warm; k++) {
    const { user, ev } = makeEvent(k);
    const body = { advertising_id: user, events: [ev] } as Parameters<typeof detectStructured>[0];
    // The core alone: what ranking costs, history (kernel and labels) and Wi-Fi evidence included.
    users.fresh(); // as a worker does before every task
    const history = users.read('bench', user)?.v;
    let t = performance.now();
    const f = fixesOf(ev.data as never);
    const start = Date.parse(ev.start_time), end = Date.parse(ev.end_time);
    const a = assess(venues, users, 'bench', { fixes: f, from: 0, to: f.n, heard: wifiOf(ev.data as never), startMs: start, endMs: end, offsetMin: 0, history }, DEFAULT_PARAMS);
    const core = performance.now() - t;
    sink += a ? a.ranked.length + a.none : 0;
    t = performance.now();
    const items = detectStructured(body, ctx);
    const whole = performance.now() - t;
    sink += items.length;
    if (k >= warm) { coreTimes.push(core); reqTimes.push(whole); }
  }
  users.close();
  const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3)); };
  parentPort!.postMessage({ events, warm_up: warm, core_p50_ms: q(coreTimes, 0.5), core_p99_ms: q(coreTimes, 0.99), core_max_ms: q(coreTimes, 1),
    request_p50_ms: q(reqTimes, 0.5), request_p99_ms: q(reqTimes, 0.99), request_max_ms: q(reqTimes, 1), sink });
}

if (isMainThread) main().catch((err) => { console.error(err); process.exit(1); });
else void worker();
