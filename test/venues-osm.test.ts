import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { runImport } from '../src/venues/import/build.js';
import { loadStore, openStore, type VenueStore } from '../src/venues/store.js';
import type { ImportReport } from '../src/venues/types.js';

// The bundled Monaco extract itself is the fixture (data/README.md).
const pbf = fileURLToPath(new URL('../../data/monaco-latest.osm.pbf', import.meta.url));
let dir: string;
let report: ImportReport;
let store: VenueStore;
const byId = (id: string) => store.get(store.indexOf(id)!)!;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dwell-osm-'));
  report = await runImport({ format: 'osm', file: pbf, out: dir, quiet: true });
  store = openStore(await loadStore(dir));
});
after(async () => { store.close(); await rm(dir, { recursive: true, force: true }); });

test('osm: the 846 named venues of the Monaco extract, from nodes, ways and relations', () => {
  assert.equal(report.venues, 846);
  assert.equal(report.bad, 0);
  const kinds = { n: 0, w: 0, r: 0 } as Record<string, number>;
  for (let i = 0; i < store.count; i++) kinds[store.get(i)!.id[0]]++;
  assert.ok(kinds.n > 600 && kinds.w > 50 && kinds.r > 0, JSON.stringify(kinds));
});

test('osm: categories, addresses from addr:*, brand', () => {
  const m = byId('n267885935');
  assert.equal(m.name, 'Marché U');
  assert.equal(m.type, 'Supermarket');
  assert.equal(m.category, 'Retail');
  assert.equal(m.radius, 30);
  assert.equal(m.address?.street_address, '30 Boulevard Princesse Charlotte');
  assert.equal(m.address?.postal_code, '98000');
  assert.equal(m.address?.city, 'Monaco');
  assert.equal(m.address?.country, 'Monaco');
  assert.equal(byId('n267885777').type, 'Hotel');
  const ubs = byId('n267885802');
  assert.equal(ubs.type, 'Bank');
  assert.equal(ubs.address?.city, 'Monte-Carlo');
  const esso = byId('n25230434');
  assert.equal(esso.brand, 'Esso');
  assert.equal(esso.type, 'Fuel Station');
});

test('osm: ways sit at their centroid with a radius from their footprint', () => {
  const ways = [];
  for (let i = 0; i < store.count; i++) { const v = store.get(i)!; if (v.id[0] === 'w') ways.push(v); }
  const fountain = byId('w572935479');
  assert.ok(fountain.radius < 10, `fountain radius ${fountain.radius}`);
  assert.ok(Math.abs(fountain.lat - 43.73939) < 0.0002 && Math.abs(fountain.lon - 7.42754) < 0.0002);
  assert.ok(ways.some((w) => w.radius > 50), 'some large building or park');
  assert.ok(ways.every((w) => w.radius >= 3 && w.radius <= 5000));
});
