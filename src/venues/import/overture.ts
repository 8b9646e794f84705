/**
 * Overture Maps Places (GeoParquet, theme=places/type=place) → venues.
 *
 * Schema followed: Overture's `place` feature as published in the 2025 releases (schema 1.x,
 * OvertureMaps/schema places/place.yaml and docs.overturemaps.org/guides/places):
 * id, geometry (WKB Point, GeoParquet 1.1 encoding), bbox {xmin, xmax, ymin, ymax}, version,
 * sources, names {primary, common, rules}, categories {primary, alternate}, basic_category,
 * taxonomy {primary, hierarchy, alternates} (the newer category system), confidence, websites,
 * socials, emails, phones, brand {wikidata, names {primary, …}}, addresses [{freeform,
 * locality, postcode, region, country}], operating_status (open | permanently_closed |
 * temporarily_closed). Only the columns used here are read.
 *
 * - Dropped as closed: operating_status "permanently_closed"; in releases before
 *   operating_status, a confidence of exactly 0 (the schema: "0 means that we're sure that the
 *   place doesn't exist (anymore)"). "temporarily_closed" is kept: the place is still there.
 * - Position: the WKB point (the schema: a place's geometry MUST be a Point). The bbox column is
 *   not read: hyparquet assembles a struct column at ~20 % of this reader's time, for nothing.
 * - Categories through overture-categories.ts; brand = brand.names.primary.
 */
import { validLatLon } from '../geo.js';
import { UNKNOWN, type VenueType } from '../taxonomy.js';
import type { Address, Venue } from '../types.js';
import { overtureType } from './overture-categories.js';
import { num, regionName, scanParquet, text, texts, type ParquetRow } from './parquet.js';
import type { Progress } from './report.js';
import { makeVenue } from './venue.js';
import { pointOf } from './wkb.js';

const COLUMNS = ['id', 'geometry', 'names', 'categories', 'basic_category', 'taxonomy', 'confidence', 'brand', 'addresses', 'operating_status'];
type Obj = Record<string, unknown> | undefined;

export async function readOverture(file: string, progress: Progress, emit: (v: Venue, ref: number | string) => void): Promise<void> {
  await scanParquet(file, { label: 'Overture places', columns: COLUMNS, required: ['id', 'geometry'] }, progress, (row, ref) => {
    if (isClosed(row)) { progress.closed++; return; }
    const v = toVenue(row, progress);
    if (typeof v === 'string') progress.badRow(ref, v);
    else emit(v, ref);
  });
}

function isClosed(r: ParquetRow): boolean {
  const status = text(r.operating_status);
  return status === 'permanently_closed' || (status === undefined && num(r.confidence) === 0);
}

function toVenue(r: ParquetRow, progress: Progress): Venue | string {
  const id = text(r.id);
  if (!id) return 'empty id';
  const p = pointOf(r.geometry);
  if (!p) return r.geometry == null ? 'no geometry' : 'geometry is not a WKB point';
  if (!validLatLon(p.lat, p.lon)) return `expected a point in [-180, 180] × [-90, 90], got ${p.lon}, ${p.lat}`;
  const names = r.names as Obj;
  const brand = (r.brand as Obj)?.names as Obj;
  return makeVenue({
    id, name: text(names?.primary) ?? '', lat: p.lat, lon: p.lon, type: placeType(r, progress),
    brand: text(brand?.primary), address: address(r.addresses),
  });
}

function placeType(r: ParquetRow, progress: Progress): VenueType {
  const taxonomy = r.taxonomy as Obj;
  const categories = r.categories as Obj;
  const primary = text(taxonomy?.primary) ?? text(categories?.primary);
  const broader = [
    ...texts(taxonomy?.hierarchy).reverse(), ...[text(r.basic_category)].filter((s): s is string => !!s),
    ...texts(categories?.alternate), ...texts(taxonomy?.alternates),
  ];
  const hit = overtureType(primary, broader);
  if (!hit?.exact && (primary || broader.length)) progress.unmappedCategory(primary ?? broader[0]);
  return hit?.type ?? UNKNOWN;
}

function address(v: unknown): Address | undefined {
  const a = (Array.isArray(v) ? v[0] : undefined) as Obj;
  if (!a) return undefined;
  const out: Address = {
    street_address: text(a.freeform), city: text(a.locality), state: regionName(text(a.region)),
    postal_code: text(a.postcode), country: text(a.country),
  };
  for (const k of Object.keys(out) as Array<keyof Address>) if (out[k] === undefined) delete out[k];
  return out;
}
