/**
 * The synthetic venue store of bench/place-triggers.ts, written straight in the store's format
 * (records.ts, spatial-index.ts, store-layout.ts) rather than through the importer: records in
 * Hilbert order under ids that sort as they are numbered, so both LMDB databases are appended to
 * (MDB_APPEND, no B-tree search), in transactions of 64k. Ten million venues build in minutes
 * where the importer took about an hour, and are kept between runs under the temp directory,
 * keyed by what makes them (count, seed, generator version, format version), built into a
 * private directory and renamed into place only when complete.
 *
 * Venues: evenly spread around Monaco at DENSITY a km² (a city centre's, as dense as Manhattan's
 * points of interest: the square grows with the count, 22 km a side at a million, 70 at ten
 * million), of random taxonomy types with their default radii; BRANDED of them carry one of
 * BRANDS brands.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRecords } from '../src/venues/records.js';
import { buildIndex } from '../src/venues/spatial-index.js';
import { hilbertOrder } from '../src/venues/hilbert-order.js';
import { mercY } from '../src/venues/geo.js';
import { FORMAT_VERSION, INDEX, META, RECORDS, writeCurrent, type StoreMeta } from '../src/venues/store-layout.js';
import { allTypes } from '../src/venues/taxonomy.js';
import type { Venue } from '../src/venues/types.js';
import { mulberry32 } from './lib/rng.js';

export const CENTER = { lat: 43.735, lon: 7.42 };
/** Venues a km²: a million in the 22 km square of the first version of this bench. */
export const DENSITY = 1e6 / 484;
export const BRANDS = 400, BRANDED = 0.4;
/** Bumped when what is generated changes: an older cache is not reused. */
const GENERATOR = 3;
const TXN = 65_536;

export interface SyntheticStore { root: string; built: boolean; seconds: number; branded: number[] }

/** The store of `n` venues for `seed`, built unless the cache holds it; `root` is what loadStore takes. */
export async function syntheticStore(n: number, seed: number, say: (s: string) => void): Promise<SyntheticStore> {
  const cache = path.join(os.tmpdir(), 'dwell-bench-place-stores');
  const key = `f${FORMAT_VERSION}-g${GENERATOR}-n${n}-s${seed}`;
  const root = path.join(cache, key);
  const t0 = performance.now();
  if (fs.existsSync(path.join(root, 'venues', 'CURRENT'))) {
    const branded = JSON.parse(fs.readFileSync(path.join(root, 'brands.json'), 'utf8')) as number[];
    return { root: path.join(root, 'venues'), built: false, seconds: 0, branded };
  }
  fs.mkdirSync(cache, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cache, `${key}.building-`));
  try {
    say(`building ${n.toLocaleString('en-US')} venues into ${tmp} (kept for later runs)`);
    const branded = await write(n, seed, path.join(tmp, 'venues'), say);
    fs.writeFileSync(path.join(tmp, 'brands.json'), JSON.stringify(branded));
    fs.rmSync(root, { recursive: true, force: true });
    fs.renameSync(tmp, root);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return { root: path.join(root, 'venues'), built: true, seconds: (performance.now() - t0) / 1000, branded: JSON.parse(fs.readFileSync(path.join(root, 'brands.json'), 'utf8')) };
}

/** Writes the store; answers how many venues each brand has. */
async function write(n: number, seed: number, venuesRoot: string, say: (s: string) => void): Promise<number[]> {
  const types = allTypes().filter((t) => t.type_id !== 0);
  const random = mulberry32(seed);
  const half = Math.sqrt(n / DENSITY) / 2 * 1000; // metres
  const HALF_LAT = half / 111_195, HALF_LON = HALF_LAT / Math.cos((CENTER.lat * Math.PI) / 180);
  const lat = new Float64Array(n), lon = new Float64Array(n);
  const type = new Uint16Array(n), brand = new Int16Array(n), pop = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    type[i] = Math.floor(random() * types.length);
    brand[i] = random() < BRANDED ? Math.floor(random() * BRANDS) : -1;
    lat[i] = CENTER.lat + (random() * 2 - 1) * HALF_LAT;
    lon[i] = CENTER.lon + (random() * 2 - 1) * HALF_LON;
    pop[i] = Math.floor(random() * 50);
  }
  const xs = Float32Array.from(lon), ys = Float32Array.from(lat, mercY);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, minLat = Infinity, maxLat = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, xs[i]); maxX = Math.max(maxX, xs[i]); minY = Math.min(minY, ys[i]); maxY = Math.max(maxY, ys[i]);
    minLat = Math.min(minLat, lat[i]); maxLat = Math.max(maxLat, lat[i]);
  }
  const order = hilbertOrder(xs, ys, n, { minX, minY, maxX, maxY });
  const version = 'v-synthetic';
  const dir = path.join(venuesRoot, version);
  fs.mkdirSync(dir, { recursive: true });
  const db = openRecords(path.join(dir, RECORDS), false);
  const width = String(n - 1).length;
  const outLat = new Float64Array(n), outLon = new Float64Array(n);
  const branded = new Array<number>(BRANDS).fill(0);
  for (let k0 = 0; k0 < n; k0 += TXN) {
    db.env.transactionSync(() => {
      for (let k = k0; k < Math.min(n, k0 + TXN); k++) {
        const i = order[k], t = types[type[i]];
        const v: Venue = {
          id: `s${String(k).padStart(width, '0')}`, name: `Venue ${k}`, lat: lat[i], lon: lon[i],
          type_id: t.type_id, type: t.type, category: t.category, sub_category: t.sub_category, radius: t.radius, popularity: pop[i],
        };
        if (brand[i] >= 0) { v.brand = `Brand ${brand[i]}`; branded[brand[i]]++; }
        outLat[k] = lat[i]; outLon[k] = lon[i];
        db.venues.putSync(k, v, { append: true });
        db.ids.putSync(v.id, k, { append: true });
      }
    });
    if ((k0 / TXN) % 16 === 15) say(`  ${(k0 + TXN).toLocaleString('en-US')} records`);
  }
  await db.env.close();
  const index = buildIndex(outLat, outLon, n);
  fs.writeFileSync(path.join(dir, INDEX), new Uint8Array(index));
  const meta: StoreMeta = {
    format_version: FORMAT_VERSION, count: n, bbox: [minX, minLat, maxX, maxLat],
    source: { format: 'jsonl', file: `synthetic-${n}-${seed}` }, built_at: new Date().toISOString(), index_bytes: index.byteLength, counted: n,
  };
  fs.writeFileSync(path.join(dir, META), `${JSON.stringify(meta, null, 2)}\n`);
  await writeCurrent(venuesRoot, version);
  return branded;
}
