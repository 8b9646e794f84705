import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { after, test } from 'node:test';
import { runImport } from '../src/venues/import/build.js';
import { loadStore, openStore } from '../src/venues/store.js';

const fixture = fileURLToPath(new URL('../../test/fixtures/venues/nyc-venues.jsonl', import.meta.url));
const dirs: string[] = [];
const tmp = async (): Promise<string> => { const d = await mkdtemp(join(tmpdir(), 'dwell-jsonl-')); dirs.push(d); return d; };
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

test('jsonl: counts, bad rows with line numbers, unmapped categories', async () => {
  const r = await runImport({ format: 'jsonl', file: fixture, out: await tmp(), quiet: true });
  assert.equal(r.rows, 27); // 28 lines, one blank
  assert.equal(r.venues, 22);
  assert.equal(r.bad, 5);
  assert.deepEqual(r.bad_rows.map((b) => b.line), [11, 12, 13, 26, 27]);
  assert.match(r.bad_rows[0].reason, /invalid JSON/);
  assert.match(r.bad_rows[1].reason, /expected numeric lat/);
  assert.match(r.bad_rows[2].reason, /lon=-273.99/);
  assert.match(r.bad_rows[3].reason, /duplicate id "46ea2358f964a520cf4a1fe3"/);
  assert.match(r.bad_rows[4].reason, /non-negative/);
  assert.deepEqual(r.unmapped_categories, { 'Quantum Teleporter': 1 });
});

test('jsonl: records carry categories, popularity, brand and a completed address', async () => {
  const out = await tmp();
  await runImport({ format: 'jsonl', file: fixture, out, quiet: true });
  const s = openStore(await loadStore(out));
  const byId = (id: string) => s.get(s.indexOf(id)!)!;
  const bar = byId('46ea2358f964a520cf4a1fe3');
  assert.equal(bar.type, 'Sports Bar');
  assert.equal(bar.category, 'Dining and Drinking');
  assert.equal(bar.popularity, 1);
  assert.equal(bar.name, '');
  assert.equal(bar.address?.formatted_city, 'New York, NY');
  const h = byId('n357620244');
  assert.equal(h.sub_category, 'Hospital');
  assert.equal(h.category, 'Health and Medicine');
  assert.deepEqual(h.address, {
    street_address: '30 7th Avenue', city: 'New York', state: 'New York', country: 'United States', postal_code: '10011',
    formatted_city: 'New York, NY', formatted_address: '30 7th Avenue, New York, NY 10011',
  });
  const audi = byId('n663079718');
  assert.equal(audi.brand, 'Audi');
  assert.equal(audi.type, 'Car Dealership');
  const odd = byId('x-unmapped');
  assert.equal(odd.type_id, 0);
  assert.equal(odd.popularity, 7);
  assert.equal(s.indexOf('x-nolat'), undefined);
});

test('jsonl: gzip is detected by content, not by name', async () => {
  const dir = await tmp();
  const gz = join(dir, 'venues.data');
  await writeFile(gz, gzipSync(await readFile(fixture)));
  const r = await runImport({ format: 'jsonl', file: gz, out: join(dir, 'store'), quiet: true });
  assert.equal(r.venues, 22);
  assert.equal(r.bad, 5);
});
