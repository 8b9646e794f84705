/**
 * `--format overture`: Overture places GeoParquet, written here in the published schema
 * (src/devkit/places-parquet.ts), imported into a real store and read back; WKB decoding.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runImport } from '../src/venues/import/build.js';
import { OVERTURE_ALIASES, overtureType } from '../src/venues/import/overture-categories.js';
import { wkbPoint } from '../src/venues/import/wkb.js';
import { typeByName } from '../src/venues/taxonomy.js';
import { loadStore, openStore } from '../src/venues/store.js';
import { writeOvertureParquet, type OverturePlace } from './helpers/places-parquet.js';

const dirs: string[] = [];
const tmp = async (): Promise<string> => { const d = await mkdtemp(join(tmpdir(), 'dwell-overture-')); dirs.push(d); return d; };
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

const places: OverturePlace[] = [
  { id: '08f2a100d2c6e5a503a6cb2f0d3b1c11', lon: 2.3488, lat: 48.8534, name: 'Café de la Place', category: 'coffee_shop', alternate: ['cafe'],
    brand: 'Columbus Café', address: { freeform: '12 Rue de Rivoli', locality: 'Paris', postcode: '75004', country: 'FR' } },
  { id: 'ov-closed', lon: 2.35, lat: 48.86, name: 'Fermé', category: 'restaurant', operating_status: 'permanently_closed' },
  { id: 'ov-temp', lon: 2.351, lat: 48.861, name: 'Travaux', category: 'italian_restaurant', operating_status: 'temporarily_closed' },
  { id: 'ov-taxonomy', lon: -73.985, lat: 40.748, name: 'Noodle Bar', category: 'xyz_noodle_counter',
    taxonomy: { primary: 'xyz_noodle_counter', hierarchy: ['food_and_drink', 'restaurant', 'xyz_noodle_counter'] },
    address: { freeform: '350 5th Ave', locality: 'New York', postcode: '10118', region: 'US-NY', country: 'US' } },
  { id: 'ov-suffix', lon: -73.986, lat: 40.749, name: 'Widgets', category: 'widget_store' },
  { id: 'ov-nothing', lon: -73.987, lat: 40.75, name: 'Thing', category: 'qqq' },
  { id: 'ov-casino', lon: 7.4277, lat: 43.7398, name: 'Casino', category: 'casino' },
  { id: 'ov-old-closed', lon: 7.42, lat: 43.73, name: 'Old release', category: 'bar', confidence: 0, operating_status: null },
  { id: 'ov-polygon', lon: 7.41, lat: 43.72, geometry: polygonWkb(), name: 'Not a point', category: 'park' },
  { id: 'ov-nowhere', lon: 0, lat: 0, geometry: null, name: 'Nowhere', category: 'park' },
];

function polygonWkb(): Uint8Array {
  const b = Buffer.alloc(1 + 4 + 4 + 4 + 4 * 16);
  b.writeUInt8(1, 0); b.writeUInt32LE(3, 1); b.writeUInt32LE(1, 5); b.writeUInt32LE(4, 9);
  return new Uint8Array(b);
}

test('overture: venues, closed places dropped, names, brands, addresses, categories', async () => {
  const dir = await tmp();
  const file = join(dir, 'part-00000.parquet');
  writeOvertureParquet(file, places, { rowGroupSize: 4 });
  const r = await runImport({ format: 'overture', file, out: join(dir, 'store'), quiet: true });
  assert.equal(r.rows, 10);
  assert.equal(r.closed, 2);
  assert.equal(r.venues, 6);
  assert.deepEqual(r.bad_rows, [{ line: 9, reason: 'geometry is not a WKB point' }, { line: 10, reason: 'no geometry' }]);
  assert.deepEqual(r.unmapped_categories, { xyz_noodle_counter: 1, widget_store: 1, qqq: 1 });

  const s = openStore(await loadStore(join(dir, 'store')));
  const get = (id: string) => s.get(s.indexOf(id)!)!;
  const cafe = get('08f2a100d2c6e5a503a6cb2f0d3b1c11');
  assert.equal(cafe.name, 'Café de la Place');
  assert.equal(cafe.type, 'Coffee Shop');
  assert.equal(cafe.brand, 'Columbus Café');
  assert.equal(cafe.lat, 48.8534);
  assert.equal(cafe.lon, 2.3488);
  assert.equal(cafe.address?.street_address, '12 Rue de Rivoli');
  assert.equal(cafe.address?.city, 'Paris');
  assert.equal(cafe.address?.country, 'France');
  assert.equal(cafe.address?.postal_code, '75004');
  assert.equal(get('ov-temp').type, 'Italian Restaurant', 'temporarily closed places are still there');
  const noodle = get('ov-taxonomy');
  assert.equal(noodle.type, 'Restaurant', 'an unknown key falls back up its taxonomy hierarchy');
  assert.equal(noodle.address?.state, 'New York', 'a region code gives way to the full name');
  assert.equal(noodle.address?.formatted_address, '350 5th Ave, New York, NY 10118');
  assert.equal(get('ov-suffix').type, 'Retail');
  assert.equal(get('ov-nothing').type_id, 0);
  assert.equal(get('ov-casino').type, 'Casino');
  for (const id of ['ov-closed', 'ov-old-closed', 'ov-polygon', 'ov-nowhere']) assert.equal(s.indexOf(id), undefined, id);
});

test('overture: category keys map onto the taxonomy', () => {
  for (const [key, name] of Object.entries(OVERTURE_ALIASES)) assert.ok(typeByName(name), `${key} → ${name} is not in data/taxonomy.json`);
  const t = (primary: string, broader: string[] = []) => overtureType(primary, broader);
  assert.deepEqual([t('hotel')?.type.type, t('hotel')?.exact], ['Hotel', true]);
  assert.equal(t('sushi_restaurant')?.type.type, 'Sushi Restaurant');
  assert.equal(t('bike_rentals')?.type.type, 'Bike Rental', 'plural keys are singular names');
  assert.equal(t('eat_and_drink')?.type.type, 'Dining and Drinking');
  assert.deepEqual([t('zzz', ['eat_and_drink'])?.type.type, t('zzz', ['eat_and_drink'])?.exact], ['Dining and Drinking', false]);
  assert.equal(t('zzz'), undefined);
});

test('WKB: little and big endian, ISO Z, EWKB with SRID, a one-point MultiPoint; other geometries are not points', () => {
  const point = (little: boolean, type: number, coords: number[], srid?: number): Uint8Array => {
    const b = Buffer.alloc(5 + (srid === undefined ? 0 : 4) + coords.length * 8);
    b.writeUInt8(little ? 1 : 0, 0);
    if (little) b.writeUInt32LE(type >>> 0, 1); else b.writeUInt32BE(type >>> 0, 1);
    let at = 5;
    if (srid !== undefined) { if (little) b.writeUInt32LE(srid, at); else b.writeUInt32BE(srid, at); at += 4; }
    for (const c of coords) { if (little) b.writeDoubleLE(c, at); else b.writeDoubleBE(c, at); at += 8; }
    return new Uint8Array(b);
  };
  assert.deepEqual(wkbPoint(point(true, 1, [7.42, 43.73])), { lon: 7.42, lat: 43.73 });
  assert.deepEqual(wkbPoint(point(false, 1, [-73.98, 40.75])), { lon: -73.98, lat: 40.75 });
  assert.deepEqual(wkbPoint(point(true, 1001, [1, 2, 30])), { lon: 1, lat: 2 });
  assert.deepEqual(wkbPoint(point(true, 0x20000001, [3, 4], 4326)), { lon: 3, lat: 4 });
  const multi = Buffer.concat([Buffer.from([1, 4, 0, 0, 0, 1, 0, 0, 0]), Buffer.from(point(true, 1, [5, 6]))]);
  assert.deepEqual(wkbPoint(new Uint8Array(multi)), { lon: 5, lat: 6 });
  assert.equal(wkbPoint(point(true, 1, [NaN, NaN])), undefined, 'POINT EMPTY');
  assert.equal(wkbPoint(polygonWkb()), undefined);
  assert.equal(wkbPoint(new Uint8Array([1, 1, 0])), undefined, 'truncated');
});
