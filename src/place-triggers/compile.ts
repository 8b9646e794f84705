/**
 * An app's place triggers compiled for matching, once per change of them (worker-source.ts
 * caches it): a venue is tested with one or two Map lookups, by its lower-cased brand and by its
 * type id, whatever the number of triggers. Types are expanded to every type below them here, so
 * a detection never walks the taxonomy.
 *
 * Reach: how far from a venue a trigger can fire. A trigger with a radius reaches that far; one
 * that takes each venue's own radius reaches the largest default radius of the types it matches
 * (src/venues/radius.ts), at least OWN_MIN_M and at most the contract's 1,000 m, and a venue's own
 * radius counts up to that reach. Detection searches the spatial index once per fix, out to the
 * largest reach of the app's triggers.
 */
import type { StoredPlaceTrigger } from '../schemas/place-trigger.js';
import { PLACE_LIMITS } from '../schemas/place-trigger.js';
import { typeById } from '../venues/taxonomy.js';
import type { Venue } from '../venues/types.js';
import { typesBelow } from './types-below.js';

/** Own-radius reach of a brand-only trigger, and the least of any: the default radius of most chains' shops, restaurants, banks and hotels (src/venues/radius.ts) is within it. */
export const OWN_MIN_M = 50;

export interface CompiledTrigger {
  rec: StoredPlaceTrigger;
  /** The farthest (metres) this trigger fires from a venue's position. */
  reach: number;
  /** For a trigger with both brand and type: the types a venue of the brand must have. */
  types: Set<number> | null;
}

export interface PlaceMatcher {
  byBrand: Map<string, CompiledTrigger[]>;
  byType: Map<number, CompiledTrigger[]>;
  byId: Map<string, CompiledTrigger>;
  /** The largest reach: the search radius of a fix. */
  reach: number;
}

export function compileTriggers(triggers: readonly StoredPlaceTrigger[]): PlaceMatcher {
  const m: PlaceMatcher = { byBrand: new Map(), byType: new Map(), byId: new Map(), reach: 0 };
  for (const rec of triggers) {
    const types = rec.type_id === null ? null : new Set(typesBelow(rec.type_id) ?? [rec.type_id]);
    const c: CompiledTrigger = { rec, reach: rec.radius ?? ownReach(types), types: rec.brand === null ? null : types };
    m.byId.set(rec.id, c);
    m.reach = Math.max(m.reach, c.reach);
    if (rec.brand !== null) push(m.byBrand, rec.brand.toLowerCase(), c);
    else for (const t of types ?? []) push(m.byType, t, c);
  }
  return m;
}

/** The triggers a venue matches (none: an empty array, shared). */
export function triggersOf(m: PlaceMatcher, v: Venue): readonly CompiledTrigger[] {
  const byType = m.byType.get(v.type_id);
  const byBrand = v.brand === undefined || m.byBrand.size === 0 ? undefined : m.byBrand.get(v.brand.toLowerCase());
  if (!byBrand) return byType ?? NONE;
  const brandOk = byBrand.filter((c) => c.types === null || c.types.has(v.type_id));
  return byType ? [...brandOk, ...byType] : brandOk;
}

/** The radius a trigger fires within around a venue. */
export const radiusFor = (c: CompiledTrigger, v: Venue): number => c.rec.radius ?? Math.min(v.radius, c.reach);

const NONE: readonly CompiledTrigger[] = Object.freeze([]);

function ownReach(types: Set<number> | null): number {
  let r = OWN_MIN_M;
  for (const t of types ?? []) r = Math.max(r, typeById(t)?.radius ?? 0);
  return Math.min(r, PLACE_LIMITS.radiusMax);
}

function push<K>(map: Map<K, CompiledTrigger[]>, k: K, c: CompiledTrigger): void {
  const list = map.get(k);
  if (list) list.push(c);
  else map.set(k, [c]);
}
