/** Resolves a source's category fields (a Foursquare id, an OSM "key=value", or a name). */
import { OSM_KEYS, osmTagType } from '../osm-categories.js';
import { typeByFsqId, typeByName, type VenueType } from '../taxonomy.js';

/** Foursquare v2 names (TSMC2014) that the current taxonomy spells differently. */
const LEGACY_NAMES: Record<string, string> = { ferry: 'Boat or Ferry', 'subway': 'Metro Station', 'gym / fitness center': 'Gym' };

export function resolveCategory(categoryId: string | undefined, name: string | undefined): VenueType | undefined {
  let fallback: VenueType | undefined;
  if (categoryId) {
    const byId = typeByFsqId(categoryId);
    if (byId) return byId;
    const eq = categoryId.indexOf('=');
    if (eq > 0) {
      const osm = osmTagType(categoryId.slice(0, eq), categoryId.slice(eq + 1));
      if (osm?.exact) return osm.type;
      fallback = osm?.type; // the key's broad type, unless the name says more
    }
  }
  if (!name) return fallback;
  const byName = typeByName(name) ?? typeByName(LEGACY_NAMES[name.trim().toLowerCase()] ?? '');
  if (byName) return byName;
  // Bare OSM values ("parking", "fuel") as written by OSM-derived files.
  const value = name.trim().toLowerCase().replace(/ /g, '_');
  for (const key of OSM_KEYS) {
    const r = osmTagType(key, value);
    if (r?.exact) return r.type;
  }
  return fallback;
}
