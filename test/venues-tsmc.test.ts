import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { runImport } from '../src/venues/import/build.js';
import { loadStore, openStore } from '../src/venues/store.js';

const fx = (name: string) => fileURLToPath(new URL(`../../test/fixtures/venues/${name}`, import.meta.url));
const dirs: string[] = [];
const tmp = async (): Promise<string> => { const d = await mkdtemp(join(tmpdir(), 'dwell-tsmc-')); dirs.push(d); return d; };
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

async function importAndOpen(file: string) {
  const out = await tmp();
  const report = await runImport({ format: 'tsmc', file, out, quiet: true });
  const store = openStore(await loadStore(out));
  return { report, byId: (id: string) => store.get(store.indexOf(id)!)! };
}

test('tsmc csv slice: distinct venues at the median of their check-ins, counts as popularity', async () => {
  const { report, byId } = await importAndOpen(fx('tsmc-nyc-val.csv'));
  assert.equal(report.rows, 25);
  assert.equal(report.venues, 12);
  assert.deepEqual(report.bad_rows.map((b) => b.line), [12, 23]);
  assert.match(report.bad_rows[0].reason, /"not-a-number"/);
  assert.match(report.bad_rows[1].reason, /expected 6 fields, got 3/);
  const shop = byId('4b1aa7c9f964a52081ee23e3'); // 3 check-ins at 3 slightly different points
  assert.equal(shop.popularity, 3);
  assert.equal(shop.lat, 40.75993235929768);
  assert.equal(shop.lon, -73.97621053524038);
  assert.equal(shop.type, 'Clothing Store');
  assert.equal(shop.category, 'Retail');
  const hood = byId('4e5c09011f6e89370a22a4e1'); // 6 check-ins: 4 at one point, 2 at another
  assert.equal(hood.popularity, 6);
  assert.equal(hood.lat, 40.70243319209457);
  const gym = byId('4b61ca16f964a520f4222ae3');
  assert.equal(gym.popularity, 5);
  assert.equal(gym.lat, 40.75952293156487);
  assert.equal(gym.address?.formatted_city, 'New York, NY');
});

test('tsmc original tab-separated Latin-1 file: same venues, names decoded', async () => {
  const { report, byId } = await importAndOpen(fx('tsmc-original.tsv'));
  assert.equal(report.rows, 24);
  assert.equal(report.bad, 0);
  assert.equal(report.venues, 13);
  assert.equal(byId('4b1aa7c9f964a52081ee23e3').popularity, 3);
  // The hand-made row has no category id, only the Latin-1 name "Caf\xe9".
  assert.equal(byId('deadbeefdeadbeefdeadbeef').type, 'Café');
  assert.deepEqual(report.unmapped_categories, {});
});
