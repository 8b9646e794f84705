import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OSM_FALLBACK, OSM_TABLE, osmTagsType } from '../src/venues/osm-categories.js';
import { typeByFsqId, typeById, typeByName, UNKNOWN } from '../src/venues/taxonomy.js';
import { resolveCategory } from '../src/venues/import/categories.js';

const file = JSON.parse(readFileSync(new URL('../../data/taxonomy.json', import.meta.url), 'utf8')) as { types: Array<{ type_id: number; fsq_id: string }> };

test('taxonomy: unique, permanent type_ids with 0 reserved for Unknown', () => {
  const ids = file.types.map((t) => t.type_id);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(!ids.includes(0));
  assert.equal(file.types.length, 1245);
  assert.deepEqual(typeById(0), UNKNOWN);
  // Pinned: these ids are in stored records and client hands; they must never change.
  assert.equal(typeByFsqId('4bf58dd8d48988d1e0931735')?.type_id, typeByName('Coffee Shop')?.type_id);
  assert.equal(typeByName('Café')?.type_id, 426);
  assert.equal(typeByName('Arts and Entertainment')?.type_id, 1);
});

test('taxonomy: category is the level-1 name, sub_category the most specific', () => {
  const t = typeByFsqId('55a59bace4b013909087cb0c');
  assert.equal(t?.category, 'Dining and Drinking');
  assert.equal(t?.sub_category, 'Donburi Restaurant');
  assert.equal(t?.type, 'Donburi Restaurant');
  assert.equal(typeByName('  coffee shop ')?.sub_category, 'Coffee Shop');
});

test('taxonomy: default footprint radius by category', () => {
  assert.equal(typeByName('Café')?.radius, 10);
  assert.equal(typeByName('Supermarket')?.radius, 30);
  assert.ok(typeByName('Park')!.radius >= 100);
  assert.ok(typeByName('Stadium')!.radius >= 100);
  assert.ok(typeByName('Airport')!.radius >= 1000);
  assert.ok(typeByName('Donburi Restaurant')!.radius <= 20);
});

test('osm table: every target and fallback names a taxonomy type', () => {
  for (const [key, table] of Object.entries(OSM_TABLE)) {
    for (const [value, name] of Object.entries(table)) assert.ok(typeByName(name), `${key}=${value} → ${name} is not in the taxonomy`);
    assert.ok(typeByName(OSM_FALLBACK[key]), `fallback of ${key}`);
  }
});

test('osm tags: key order, religion, fallback', () => {
  assert.equal(osmTagsType({ amenity: 'restaurant', tourism: 'hotel' })?.type.type, 'Restaurant');
  assert.equal(osmTagsType({ amenity: 'place_of_worship', religion: 'muslim' })?.type.type, 'Mosque');
  const fb = osmTagsType({ shop: 'no_such_shop' });
  assert.equal(fb?.exact, false);
  assert.equal(fb?.type.type, 'Retail');
  assert.equal(osmTagsType({ highway: 'bus_stop' }), undefined);
});

test('resolveCategory: Foursquare id, OSM key=value, name, bare OSM value, legacy name', () => {
  assert.equal(resolveCategory('4bf58dd8d48988d11d941735', 'whatever')?.type, 'Sports Bar');
  assert.equal(resolveCategory('amenity=hospital', 'hospital')?.type, 'Hospital');
  assert.equal(resolveCategory(undefined, 'Bar')?.type, 'Bar');
  assert.equal(resolveCategory(undefined, 'fuel')?.type, 'Fuel Station');
  assert.equal(resolveCategory(undefined, 'Ferry')?.type, 'Boat or Ferry');
  assert.equal(resolveCategory(undefined, 'Quantum Teleporter'), undefined);
});
