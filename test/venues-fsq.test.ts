/**
 * `--format fsq-os-places`: Foursquare OS Places Parquet, written here in the published schema
 * (src/devkit/places-parquet.ts), imported into a real store and read back.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeFileSync } from 'node:fs';
import { runImport } from '../src/venues/import/build.js';
import { loadStore, openStore } from '../src/venues/store.js';
import { writeFsqParquet, type FsqPlace } from './helpers/places-parquet.js';

const dirs: string[] = [];
const tmp = async (): Promise<string> => { const d = await mkdtemp(join(tmpdir(), 'dwell-fsq-')); dirs.push(d); return d; };
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const COFFEE = '4bf58dd8d48988d1e0931735'; // Coffee Shop
const HOSPITAL = '4bf58dd8d48988d196941735';

const places: FsqPlace[] = [
  { fsq_place_id: 'fsq-coffee', name: 'Bean There', latitude: 40.752, longitude: -73.977, address: '89 E 42nd St', locality: 'New York',
    region: 'NY', postcode: '10017', country: 'US', date_created: '2012-03-01', date_refreshed: '2025-01-02',
    fsq_category_ids: [COFFEE], fsq_category_labels: ['Dining and Drinking > Cafe, Coffee, and Tea House > Coffee Shop'], tel: '(212) 555-0100' },
  { fsq_place_id: 'fsq-closed', name: 'Gone Diner', latitude: 40.753, longitude: -73.978, date_closed: '2023-06-30', fsq_category_ids: [COFFEE] },
  { fsq_place_id: 'fsq-label', name: 'Label Only', latitude: 40.754, longitude: -73.979, fsq_category_ids: ['000000000000000000000000'],
    fsq_category_labels: ['Health and Medicine > Hospital'] },
  { fsq_place_id: 'fsq-unknown', name: 'Mystery', latitude: 40.755, longitude: -73.98, fsq_category_ids: ['ffffffffffffffffffffffff'] },
  { fsq_place_id: 'fsq-nocat', name: 'No Category', latitude: 48.8566, longitude: 2.3522, locality: 'Paris', country: 'FR', fsq_category_ids: null,
    date_closed: '' }, // an empty string is no date: still open
  { fsq_place_id: 'fsq-nolat', name: 'Nowhere', latitude: null, longitude: null, fsq_category_ids: [HOSPITAL] },
  { fsq_place_id: null, name: 'No id', latitude: 40.75, longitude: -73.97 },
  { fsq_place_id: 'fsq-coffee', name: 'Duplicate', latitude: 40.75, longitude: -73.97, fsq_category_ids: [COFFEE] },
];

test('fsq-os-places: venues, closed places dropped, bad rows by row number, unmapped categories', async () => {
  const dir = await tmp();
  const file = join(dir, 'places.parquet');
  writeFsqParquet(file, places, { rowGroupSize: 3 }); // three row groups: streamed one at a time
  const r = await runImport({ format: 'fsq-os-places', file, out: join(dir, 'store'), quiet: true });
  assert.equal(r.rows, 8);
  assert.equal(r.closed, 1);
  assert.equal(r.venues, 4);
  assert.equal(r.bad, 3);
  assert.deepEqual(r.bad_rows.map((b) => b.line), [6, 7, 8]);
  assert.match(r.bad_rows[0].reason, /expected latitude/);
  assert.match(r.bad_rows[1].reason, /empty fsq_place_id/);
  assert.match(r.bad_rows[2].reason, /duplicate id "fsq-coffee"/);
  assert.deepEqual(r.unmapped_categories, { ffffffffffffffffffffffff: 1 });

  const s = openStore(await loadStore(join(dir, 'store')));
  const get = (id: string) => s.get(s.indexOf(id)!)!;
  const coffee = get('fsq-coffee');
  assert.equal(coffee.name, 'Bean There');
  assert.equal(coffee.type, 'Coffee Shop');
  assert.equal(coffee.category, 'Dining and Drinking');
  assert.equal(coffee.popularity, -1, 'OS Places counts no visits');
  // "NY" is an abbreviation (the schema says so for US, CA, AU, BR): the full name comes from the gazetteer.
  assert.deepEqual(coffee.address, {
    street_address: '89 E 42nd St', city: 'New York', state: 'New York', country: 'United States', postal_code: '10017',
    formatted_city: 'New York, NY', formatted_address: '89 E 42nd St, New York, NY 10017',
  });
  assert.equal(get('fsq-label').type, 'Hospital');
  assert.equal(get('fsq-unknown').type_id, 0);
  assert.equal(get('fsq-nocat').type, 'Unknown');
  assert.equal(get('fsq-nocat').address?.country, 'France');
  assert.equal(s.indexOf('fsq-closed'), undefined);
});

test('fsq-os-places: a directory of part files is one input; gzip pages read through hyparquet-compressors', async () => {
  const dir = await tmp();
  const parts = join(dir, 'release', 'dt=2025-01-10', 'places', 'parquet');
  await mkdir(parts, { recursive: true });
  writeFsqParquet(join(parts, 'places-00000.snappy.parquet'), places.slice(0, 4));
  writeFsqParquet(join(parts, 'places-00001.parquet'), places.slice(4), { codec: 'GZIP' });
  const r = await runImport({ format: 'fsq-os-places', file: join(dir, 'release'), out: join(dir, 'store'), quiet: true });
  assert.equal(r.rows, 8);
  assert.equal(r.venues, 4);
  assert.deepEqual(r.bad_rows.map((b) => b.line), ['places-00001.parquet:2', 'places-00001.parquet:3', 'places-00001.parquet:4']);
});

test('fsq-os-places: a Parquet file of another schema is refused by name', async () => {
  const dir = await tmp();
  const file = join(dir, 'other.parquet');
  writeFileSync(file, new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'id', data: ['a'], type: 'STRING' }, { name: 'name', data: ['b'], type: 'STRING' }] })));
  await assert.rejects(runImport({ format: 'fsq-os-places', file, out: join(dir, 'store'), quiet: true }),
    /no column fsq_place_id: expected the FSQ OS Places schema/);
  const notParquet = join(dir, 'places.parquet');
  writeFileSync(notParquet, 'fsq_place_id,name\n1,x\n');
  await assert.rejects(runImport({ format: 'fsq-os-places', file: notParquet, out: join(dir, 'store'), quiet: true }), /not a readable Parquet file/);
});
