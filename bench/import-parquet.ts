/**
 * Parquet import benchmark:  node dist/bench/import-parquet.js [--rows 200000] [--runs 3] [--no-doc]
 *
 * For each of `--format fsq-os-places` and `--format overture`, a seeded file of --rows places
 * in the published schema (src/devkit/places-parquet.ts; positions clustered like cities,
 * 2 % closed, half with an address, categories a mix of exact, broader and unknown ones; snappy
 * pages, row groups of 65,536 rows as the real releases roughly have) is
 *  - read: streamed row group by row group into venue records (categories, addresses completed
 *    from the gazetteer), nothing stored: the reader's own throughput;
 *  - imported: `dwell import` as a whole (records into LMDB, the spatial index, the swap).
 * One warm-up read first (the gazetteer and taxonomy load, the JIT settles), then --runs timed
 * runs of each; figures are the median and the range, in rows per wall second and per CPU
 * second of this process (the machine is shared: the CPU figure moves less with the neighbours).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runImport } from '../src/venues/import/build.js';
import { readFsq } from '../src/venues/import/fsq.js';
import { readOverture } from '../src/venues/import/overture.js';
import { Progress } from '../src/venues/import/report.js';
import { writeFsqParquet, writeOvertureParquet, type FsqPlace, type OverturePlace } from '../src/devkit/places-parquet.js';
import { writePerformanceSection } from './lib/perf-doc.js';
import { mulberry32 } from './lib/rng.js';
import { spread } from './lib/stats.js';
import { syntheticVenues } from './lib/synthetic-venues.js';
import { fmtInt, markdownTable } from './lib/table.js';
import { benchFlags } from '../src/devkit/flags.js';

const flag = benchFlags({ rows: 'string', runs: 'string', 'no-doc': 'boolean' },
  'node dist/bench/import-parquet.js [--rows 200000] [--runs 3] [--no-doc]');

const ROWS = flag.num('rows', 200_000);
const RUNS = flag.num('runs', 3);
const ROW_GROUP = 65_536;
const say = (msg: string): void => { process.stderr.write(`[bench:import-parquet] ${msg}\n`); };

// Coffee Shop, Hotel, Pharmacy, Casino, Bakery, Bar: and one id the taxonomy does not have.
const FSQ_IDS = ['4bf58dd8d48988d1e0931735', '4bf58dd8d48988d1fa931735', '4bf58dd8d48988d10f951735', '4bf58dd8d48988d17c941735', '4bf58dd8d48988d16a941735', '4bf58dd8d48988d116941735', 'ffffffffffffffffffffffff'];
// By alias, by name, by plural, by suffix only, unknown.
const OVERTURE_KEYS = ['coffee_shop', 'hotel', 'italian_restaurant', 'pharmacy', 'bike_rentals', 'gym', 'xyz_noodle_restaurant', 'qqq'];

function places(n: number): { fsq: FsqPlace[]; overture: OverturePlace[] } {
  const { lat, lon } = syntheticVenues(n, Float64Array, 42);
  const r = mulberry32(7);
  const fsq: FsqPlace[] = [], overture: OverturePlace[] = [];
  for (let i = 0; i < n; i++) {
    const closed = r() < 0.02, addressed = r() < 0.5;
    const la = Math.round(lat[i] * 1e6) / 1e6, lo = Math.round(lon[i] * 1e6) / 1e6;
    const k = Math.floor(r() * 1e9);
    fsq.push({
      fsq_place_id: `b${i.toString(16).padStart(23, '0')}`, name: `Place ${i}`, latitude: la, longitude: lo,
      ...(addressed ? { address: `${k % 900 + 1} Main Street`, locality: 'Springfield', postcode: String(10000 + (k % 89999)), country: 'US' } : {}),
      date_created: '2020-01-01', date_refreshed: '2025-01-01', date_closed: closed ? '2024-06-01' : null,
      fsq_category_ids: [FSQ_IDS[k % FSQ_IDS.length]],
    });
    overture.push({
      id: `08f${i.toString(16).padStart(29, '0')}`, lat: la, lon: lo, name: `Place ${i}`, category: OVERTURE_KEYS[k % OVERTURE_KEYS.length],
      brand: k % 10 === 0 ? 'Brand' : undefined, operating_status: closed ? 'permanently_closed' : 'open',
      ...(addressed ? { address: { freeform: `${k % 900 + 1} Main Street`, locality: 'Springfield', postcode: String(10000 + (k % 89999)), country: 'US' } } : {}),
    });
  }
  return { fsq, overture };
}

interface Timed { wall: number; cpu: number; rows: number }
async function timed(f: () => Promise<number>): Promise<Timed> {
  const c0 = process.cpuUsage(), t0 = performance.now();
  const rows = await f();
  const wall = (performance.now() - t0) / 1000, c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e6, rows };
}

const FORMATS = [
  { format: 'fsq-os-places', read: readFsq, write: (f: string, p: ReturnType<typeof places>) => writeFsqParquet(f, p.fsq, { rowGroupSize: ROW_GROUP }) },
  { format: 'overture', read: readOverture, write: (f: string, p: ReturnType<typeof places>) => writeOvertureParquet(f, p.overture, { rowGroupSize: ROW_GROUP }) },
] as const;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dwell-bench-parquet-'));
  try {
    say(`generating ${fmtInt(ROWS)} places (seeded)`);
    const data = places(ROWS);
    const rows: string[][] = [];
    for (const f of FORMATS) {
      const file = join(dir, `${f.format}.parquet`);
      f.write(file, data);
      const mb = statSync(file).size / 1e6;
      const read = async (): Promise<number> => { const p = new Progress(f.format, file, true); await f.read(file, p, () => undefined); return p.rows; };
      say(`${f.format}: ${mb.toFixed(1)} MB; warm-up read`);
      await read();
      const reads: Timed[] = [], imports: Timed[] = [];
      for (let i = 0; i < RUNS; i++) { reads.push(await timed(read)); say(`${f.format}: read ${i + 1}/${RUNS}: ${fmtInt(ROWS / reads.at(-1)!.wall)} rows/s`); }
      for (let i = 0; i < RUNS; i++) {
        const out = join(dir, `store-${f.format}`);
        imports.push(await timed(async () => (await runImport({ format: f.format, file, out, quiet: true })).rows));
        say(`${f.format}: import ${i + 1}/${RUNS}: ${fmtInt(ROWS / imports.at(-1)!.wall)} rows/s`);
      }
      for (const [what, t] of [['read into records', reads], ['`dwell import` (store + index)', imports]] as const) {
        const wall = spread(t.map((x) => x.rows / x.wall)), cpu = spread(t.map((x) => x.rows / x.cpu));
        rows.push([`\`${f.format}\``, what, fmtInt(wall.median), `${fmtInt(wall.min)}–${fmtInt(wall.max)}`, fmtInt(cpu.median), `${fmtInt(cpu.min)}–${fmtInt(cpu.max)}`]);
      }
      rows.at(-2)![0] += ` (${mb.toFixed(1)} MB)`;
    }
    const table = markdownTable(['format (file)', 'what', 'rows/s (wall), median', 'range', 'rows per CPU-s, median', 'range'], rows, ['left', 'left', 'right', 'right', 'right', 'right']);
    const note = `${fmtInt(ROWS)} seeded places a file, row groups of ${fmtInt(ROW_GROUP)}, snappy; ${RUNS} timed runs of each after one warm-up read. ` +
      'The read includes building each venue record (category mapping, address completed from the gazetteer); the import adds LMDB, the index and the swap.';
    process.stdout.write(`${table}\n\n${note}\n`);
    writePerformanceSection('Parquet import', `${table}\n\n${note}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => { process.stderr.write(`${err?.stack ?? err}\n`); process.exit(1); });
