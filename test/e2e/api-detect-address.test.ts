/**
 * estimated_address over HTTP (contract §2): always the seven keys of interface 2.8 as strings,
 * "" where unknown, with street_address and postal_code from the venue's own address as imported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runImport } from '../../src/venues/import/build.js';
import { dwellWithApp } from '../helpers/dwell.js';
import { tempDir } from '../helpers/server.js';
import { signed } from '../helpers/client.js';
import { stampAfter } from '../helpers/stamps.js';

const KEYS = ['city', 'country', 'formatted_address', 'formatted_city', 'postal_code', 'state', 'street_address'];
const HOSPITAL = { lat: 40.7377778, long: -74.0008333 };
const CAFE = { lat: 40.7527, long: -73.9772 }; // 2.8 km from the hospital
const NO_VENUE = { lat: 40.9176, long: -74.1718 }; // Paterson, NJ: 25 km from either

const venues = [
  { id: 'hosp-1', name: 'Lenox Health Greenwich Village', category: 'hospital', category_id: 'amenity=hospital', ...at(HOSPITAL),
    address: { housenumber: '30', street: '7th Avenue', postcode: '10011', city: 'New York' } },
  { id: 'cafe-1', name: 'Corner Cafe', category: 'cafe', category_id: 'amenity=cafe', ...at(CAFE),
    address: { street_address: '89 East 42nd Street', city: 'New York' } },
];
function at(p: { lat: number; long: number }) { return { lat: p.lat, lon: p.long }; }

const src = tempDir('dwell-addr-src-'), store = tempDir('dwell-addr-store-');
const dwell = dwellWithApp({ DWELL_VENUES: store }, { prepare: async () => {
  const file = path.join(src, 'venues.jsonl');
  fs.writeFileSync(file, venues.map((v) => JSON.stringify(v)).join('\n') + '\n');
  await runImport({ format: 'jsonl', file, out: store, quiet: true });
} });

/** A 25-minute visit event at `p`, fixes every 5 minutes. */
function visitAt(p: { lat: number; long: number }, id: string) {
  const data = [0, 5, 10, 15, 20].map((m, i) => ({
    timestamp: stampAfter('2024-05-06T12:00:00-04:00', m + 2),
    location: { lat: p.lat + (i % 3 - 1) * 0.00004, long: p.long + (i % 2) * 0.00004, accuracy: 15, speed: 0 },
  }));
  return { advertising_id: 'ad-addr', events: [{ event_id: id, type: 'visit', start_time: '2024-05-06T12:00:00-04:00', end_time: '2024-05-06T12:25:00-04:00', data }] };
}

async function placeOf(p: { lat: number; long: number }, id: string) {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', visitAt(p, id));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const place = r.body.data[0].visit.place;
  assert.ok(place, JSON.stringify(r.body));
  return { placeId: r.body.data[0].visit.place_id, place, a: place.estimated_address };
}

function sevenStrings(a: Record<string, unknown>) {
  assert.deepEqual(Object.keys(a).sort(), KEYS, `the seven keys of interface 2.8: ${JSON.stringify(a)}`);
  for (const k of KEYS) assert.equal(typeof a[k], 'string', `${k} is a string: ${JSON.stringify(a)}`);
}

test('a visit at a venue whose import line has a street and postcode carries them', async () => {
  const { placeId, a } = await placeOf(HOSPITAL, 'ev-hosp');
  assert.equal(placeId, 'hosp-1');
  sevenStrings(a);
  assert.equal(a.street_address, '30 7th Avenue');
  assert.equal(a.postal_code, '10011');
  assert.equal(a.city, 'New York');
  assert.equal(a.formatted_address, '30 7th Avenue, New York, NY 10011');
});

test('a venue address without a postcode gives postal_code ""', async () => {
  const { placeId, a } = await placeOf(CAFE, 'ev-cafe');
  assert.equal(placeId, 'cafe-1');
  sevenStrings(a);
  assert.equal(a.street_address, '89 East 42nd Street');
  assert.equal(a.postal_code, '');
});

test('a visit with no venue near still has all seven address keys, as strings', async () => {
  const { placeId, place, a } = await placeOf(NO_VENUE, 'ev-none');
  assert.equal(placeId, null);
  assert.deepEqual(Object.keys(place).sort(), ['estimated_address', 'estimated_geolocation']);
  sevenStrings(a);
  assert.equal(a.street_address, '');
  assert.equal(a.postal_code, '');
  assert.notEqual(a.country, '', 'the gazetteer still names the country');
});
