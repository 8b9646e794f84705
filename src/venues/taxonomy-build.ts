/**
 * Regenerates data/taxonomy.json from Foursquare OS Places' categories CSV.
 *   node dist/src/venues/taxonomy-build.js [categories.csv]
 * type_ids already in data/taxonomy.json are kept as they are (stored records and clients hold
 * them); new categories get the next free ids, removed ones stay so that old ids still resolve.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { splitCsvLine } from './import/csv.js';
import { dataPath } from './paths.js';
import type { TaxonomyFile, TypeEntry } from './taxonomy.js';

const DEFAULT_CSV = '/work/shared/data/foursquare_os_places/categories_sg.csv';

function readCategories(csvPath: string): TypeEntry[] {
  const lines = readFileSync(csvPath, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = splitCsvLine(lines[0]);
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${csvPath}: expected a '${name}' column, header is ${lines[0]}`);
    return i;
  };
  const [cId, cLevel, cName, cLabel] = ['category_id', 'category_level', 'category_name', 'category_label'].map(col);
  return lines.slice(1).map((line, i) => {
    const f = splitCsvLine(line);
    if (f.length !== header.length) throw new Error(`${csvPath}:${i + 2}: expected ${header.length} fields, got ${f.length}`);
    return { type_id: 0, fsq_id: f[cId], name: f[cName], level: Number(f[cLevel]), path: f[cLabel] };
  });
}

function main(): void {
  const csvPath = process.argv[2] ?? DEFAULT_CSV;
  const out = dataPath('taxonomy.json');
  const old: TaxonomyFile | undefined = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : undefined;
  const byFsq = new Map((old?.types ?? []).map((t) => [t.fsq_id, t]));
  let next = Math.max(0, ...(old?.types ?? []).map((t) => t.type_id)) + 1;
  const fresh = readCategories(csvPath).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const t of fresh) {
    const prev = byFsq.get(t.fsq_id);
    byFsq.set(t.fsq_id, { ...t, type_id: prev ? prev.type_id : next++ });
  }
  const types = [...byFsq.values()].sort((a, b) => a.type_id - b.type_id);
  const file: TaxonomyFile = {
    source: 'Foursquare Open Source Places categories (categories_sg.csv), Apache-2.0',
    note: 'type_id values are permanent: never renumber; type_id 0 is Unknown',
    types,
  };
  writeFileSync(out, JSON.stringify(file, null, 0).replace(/\},\{/g, '},\n{') + '\n');
  console.log(`wrote ${types.length} types to ${out}`);
}

main();
