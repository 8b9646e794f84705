/**
 * A taxonomy type and every type below it (contract §11: a trigger's type_id matches its
 * descendants). The taxonomy's paths ("Dining and Drinking > Restaurant > …") say the tree; read
 * once per thread from data/taxonomy.json, the file src/venues/taxonomy.ts reads.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../venues/paths.js';
import type { TaxonomyFile } from '../venues/taxonomy.js';

let below: Map<number, number[]> | undefined;

function load(): Map<number, number[]> {
  const file = JSON.parse(readFileSync(dataPath('taxonomy.json'), 'utf8')) as TaxonomyFile;
  const idOfPath = new Map<string, number>();
  for (const t of file.types) idOfPath.set(t.path, t.type_id);
  const out = new Map<number, number[]>();
  for (const t of file.types) {
    // Every ancestor path of this type gets it as a descendant, and the type itself.
    const parts = t.path.split(' > ');
    for (let n = 1; n <= parts.length; n++) {
      const id = idOfPath.get(parts.slice(0, n).join(' > '));
      if (id === undefined) continue;
      let list = out.get(id);
      if (!list) out.set(id, (list = []));
      list.push(t.type_id);
    }
  }
  return out;
}

/** The type and its descendants; undefined when the taxonomy has no such type. */
export function typesBelow(typeId: number): readonly number[] | undefined {
  below ??= load();
  return below.get(typeId);
}
