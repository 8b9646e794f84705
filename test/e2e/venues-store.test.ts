import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { until } from '../helpers/until.js';
import { haversineM } from '../../src/geo/distance.js';
import { runImport } from '../../src/venues/import/build.js';
import { buildIndex, nearIds, openIndex } from '../../src/venues/spatial-index.js';
import { loadStore, openStore, watchStore, type StoreHandle } from '../../src/venues/store.js';
// Seeded, so failures reproduce.
import { mulberry32 as rng } from '../../src/research/rng.js';

const pbf = fileURLToPath(new URL('../../../data/monaco-latest.osm.pbf', import.meta.url));
const storeModule = new URL('../../src/venues/store.js', import.meta.url).href;
const buildModule = new URL('../../src/venues/import/build.js', import.meta.url).href;
let root: string;
let first: StoreHandle;


function syntheticJsonl(n: number, seed: number): string {
  const r = rng(seed);
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(JSON.stringify({ id: `s${i}`, name: `Venue ${i}`, category: 'Café', lat: 40.7 + r() * 0.1, lon: -74 + r() * 0.1, popularity: i % 7 }));
  }
  return rows.join('\n') + '\n';
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'dwell-store-'));
  await runImport({ format: 'osm', file: pbf, out: root, quiet: true });
  first = await loadStore(root);
});
after(async () => { await rm(root, { recursive: true, force: true }); });

test('spatial index: Flatbush-compatible and exact against brute force', () => {
  const r = rng(7);
  const n = 50_000;
  const lat = new Float64Array(n), lon = new Float64Array(n);
  for (let i = 0; i < n; i++) { // three tight clusters plus background noise
    const c = i % 4;
    lat[i] = c === 3 ? -60 + r() * 120 : [40.75, 48.85, -33.87][c] + (r() - 0.5) * 0.02;
    lon[i] = c === 3 ? -180 + r() * 360 : [-73.98, 2.35, 151.21][c] + (r() - 0.5) * 0.02;
  }
  const index = openIndex(buildIndex(lat, lon, n));
  assert.equal(index.numItems, n);
  for (let q = 0; q < 200; q++) {
    const c = q % 3;
    const qlat = [40.75, 48.85, -33.87][c] + (r() - 0.5) * 0.02;
    const qlon = [-73.98, 2.35, 151.21][c] + (r() - 0.5) * 0.02;
    const want = [];
    for (let i = 0; i < n; i++) { const d = haversineM(qlat, qlon, lat[i], lon[i]); if (d <= 100) want.push(i); }
    const got = new Set(nearIds(index, qlat, qlon, 100, Infinity));
    for (const i of want) assert.ok(got.has(i), `query ${q}: venue ${i} within 100 m was missed`);
  }
});

test('near(): nearest first, within radius, at most max, same as brute force', () => {
  const s = openStore(first);
  const all = Array.from({ length: s.count }, (_, i) => s.get(i)!);
  const r = rng(11);
  for (let q = 0; q < 100; q++) {
    const lat = 43.725 + r() * 0.025, lon = 7.41 + r() * 0.03;
    const want = all.map((v) => haversineM(lat, lon, v.lat, v.lon)).filter((d) => d <= 150).sort((a, b) => a - b).slice(0, 10);
    const got = s.near(lat, lon, 150, 10);
    assert.deepEqual(got.map((x) => Math.round(x.distance * 1000)), want.map((d) => Math.round(d * 1000)));
  }
});

test('loadStore: a clear error when there is no store', async () => {
  await assert.rejects(loadStore(join(root, 'nope')), /no venue store at .*nope: expected a CURRENT file/);
});

test('a worker thread opens the shared index in place', async () => {
  const code = `import { parentPort, workerData } from 'node:worker_threads';
    const { openStore } = await import(${JSON.stringify(storeModule)});
    const s = openStore(workerData);
    parentPort.postMessage(s.near(43.7396, 7.4275, 100, 5).map((x) => x.venue.id));`;
  const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: first });
  const ids = await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
  await w.terminate();
  assert.deepEqual(ids, openStore(first).near(43.7396, 7.4275, 100, 5).map((x) => x.venue.id));
});

test('a failed import (corrupt gzip mid-way) leaves the old store serving', async () => {
  const bad = join(root, '..', `${root.split('/').pop()}-bad.jsonl.gz`);
  const gz = gzipSync(syntheticJsonl(20_000, 3));
  await writeFile(bad, gz.subarray(0, Math.floor(gz.length * 0.6)));
  await assert.rejects(runImport({ format: 'jsonl', file: bad, out: root, quiet: true }), /unexpected end of file/i);
  await rm(bad);
  const h = await loadStore(root);
  assert.equal(h.id, first.id);
  assert.equal(openStore(h).near(43.7396, 7.4275, 100, 1).length, 1);
  assert.deepEqual((await readdir(root)).filter((f) => f.startsWith('.tmp-')), []);
});

test('a killed import leaves the old store serving; the next import cleans up and swaps', async () => {
  const src = join(root, 'big.jsonl');
  await writeFile(src, syntheticJsonl(200_000, 5));
  const child = spawn(process.execPath, ['--input-type=module', '-e',
    `const { runImport } = await import(${JSON.stringify(buildModule)});
     await runImport({ format: 'jsonl', file: ${JSON.stringify(src)}, out: ${JSON.stringify(root)} });`], { stdio: ['ignore', 'ignore', 'pipe'] });
  // Kill it once it has reported progress, i.e. mid-way through writing the new version.
  await new Promise<void>((resolve) => child.stderr.on('data', (b: Buffer) => { if (b.includes('import progress')) resolve(); }));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.equal((await readdir(root)).filter((f) => f.startsWith('.tmp-')).length, 1);
  const h = await loadStore(root);
  assert.equal(h.id, first.id);
  assert.equal(openStore(h).near(43.7396, 7.4275, 100, 1).length, 1);

  const seen: StoreHandle[] = [];
  const stop = watchStore(root, (nh) => seen.push(nh), 50);
  await stop.ready; // the version in place is known: the import below is a swap
  const small = join(root, 'small.jsonl');
  await writeFile(small, syntheticJsonl(100, 9));
  const r = await runImport({ format: 'jsonl', file: small, out: root, quiet: true });
  await until('the swap reported', () => seen.length > 0, 10_000, 20);
  stop();
  assert.equal(seen.length, 1);
  assert.equal(seen[0].id, r.version);
  assert.equal(seen[0].count, 100);
  assert.equal(openStore(seen[0]).near(40.75, -73.95, 5000, 3).length, 3);
  const left = await readdir(root);
  assert.deepEqual(left.filter((f) => f.startsWith('.tmp-')), []);
  assert.deepEqual(left.filter((f) => f.startsWith('v-')).sort(), [first.id, r.version].sort());
});
