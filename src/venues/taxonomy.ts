/**
 * One category taxonomy for every source: Foursquare OS Places' hierarchy (data/taxonomy.json,
 * made by taxonomy-build.ts) with permanent integer type_ids. OSM tags map onto it through
 * osm-categories.ts; free-text names resolve case-insensitively.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from './paths.js';
import { defaultRadius } from './radius.js';

export interface TypeEntry { type_id: number; fsq_id: string; name: string; level: number; path: string }
export interface TaxonomyFile { source: string; note: string; types: TypeEntry[] }

/** What a venue record carries of its type. */
export interface VenueType {
  type_id: number;
  type: string;
  category: string;
  sub_category: string;
  /** Default footprint radius in metres, for sources without geometry. */
  radius: number;
}

export const UNKNOWN: VenueType = Object.freeze({ type_id: 0, type: 'Unknown', category: 'Unknown', sub_category: 'Unknown', radius: 15 });

interface Tables { byId: Map<number, VenueType>; byFsq: Map<string, VenueType>; byName: Map<string, VenueType> }
let tables: Tables | undefined;

function load(): Tables {
  const file = JSON.parse(readFileSync(dataPath('taxonomy.json'), 'utf8')) as TaxonomyFile;
  const byId = new Map<number, VenueType>([[0, UNKNOWN]]);
  const byFsq = new Map<string, VenueType>();
  const byName = new Map<string, VenueType>();
  // Several ids share a name ("Office" at two levels): the most general one wins a name lookup.
  const ordered = [...file.types].sort((a, b) => a.level - b.level || a.type_id - b.type_id);
  for (const t of ordered) {
    const path = t.path.split(' > ');
    const vt: VenueType = Object.freeze({
      type_id: t.type_id, type: t.name, category: path[0], sub_category: t.name, radius: defaultRadius(path),
    });
    byId.set(t.type_id, vt);
    byFsq.set(t.fsq_id, vt);
    const key = t.name.toLowerCase();
    if (!byName.has(key)) byName.set(key, vt);
  }
  return { byId, byFsq, byName };
}

const t = (): Tables => (tables ??= load());

export const typeById = (typeId: number): VenueType | undefined => t().byId.get(typeId);
export const typeByFsqId = (fsqId: string): VenueType | undefined => t().byFsq.get(fsqId);
export const typeByName = (name: string): VenueType | undefined => t().byName.get(name.trim().toLowerCase());
export const allTypes = (): VenueType[] => [...t().byId.values()];
