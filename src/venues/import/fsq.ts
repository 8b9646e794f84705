/**
 * Foursquare Open Source Places (Parquet) → venues.
 *
 * Schema followed: "Places OS Data Schemas", Places Dataset, as published by Foursquare for the
 * releases from dt=2024-11-19 on (docs.foursquare.com/data-products/docs/places-os-data-schema):
 * fsq_place_id, name, latitude, longitude, address, locality, region, postcode, admin_region,
 * post_town, po_box, country (ISO 3166-1 alpha-2), date_created, date_refreshed, date_closed,
 * tel, website, email, facebook_id, instagram, twitter, fsq_category_ids (list<string>),
 * fsq_category_labels (list<string>, "A > B > C"), placemaker_url, geom (WKB point), bbox,
 * unresolved_flags. Only the columns used here are read.
 *
 * - A place with a `date_closed` is dropped (counted as `closed` in the report).
 * - Categories: the first of `fsq_category_ids` found in data/taxonomy.json (our taxonomy is
 *   Foursquare's, so ids match as they are), else the most specific name of a label.
 * - The OS dataset carries no chain; a file with Places Pro's chain columns (`chain_name`, or
 *   `chains` as a list of {name}) gets the first chain as the brand.
 * - No visit counts: popularity is UNCOUNTED.
 */
import { validLatLon } from '../geo.js';
import { UNKNOWN, typeByFsqId, typeByName, type VenueType } from '../taxonomy.js';
import type { Venue } from '../types.js';
import { num, regionName, scanParquet, text, texts, type ParquetRow } from './parquet.js';
import type { Progress } from './report.js';
import { makeVenue } from './venue.js';
import { pointOf } from './wkb.js';

const COLUMNS = [
  'fsq_place_id', 'name', 'latitude', 'longitude', 'geom', 'address', 'locality', 'post_town', 'region', 'postcode',
  'country', 'date_closed', 'fsq_category_ids', 'fsq_category_labels', 'chain_name', 'chains',
];

export async function readFsq(file: string, progress: Progress, emit: (v: Venue, ref: number | string) => void): Promise<void> {
  await scanParquet(file, { label: 'FSQ OS Places', columns: COLUMNS, required: ['fsq_place_id', 'name'] }, progress, (row, ref) => {
    if (isClosed(row.date_closed)) { progress.closed++; return; }
    const v = toVenue(row, progress);
    if (typeof v === 'string') progress.badRow(ref, v);
    else emit(v, ref);
  });
}

/** A DATE (or a date string, as some copies store it); an empty string is no date. */
const isClosed = (v: unknown): boolean => v != null && (typeof v === 'string' || v instanceof Uint8Array ? text(v) !== undefined : true);

function toVenue(r: ParquetRow, progress: Progress): Venue | string {
  const id = text(r.fsq_place_id);
  if (!id) return 'empty fsq_place_id';
  let lat = num(r.latitude), lon = num(r.longitude);
  if ((lat === undefined || lon === undefined) && r.geom != null) ({ lat, lon } = pointOf(r.geom) ?? {});
  if (!validLatLon(lat, lon)) return `expected latitude in [-90, 90] and longitude in [-180, 180], got ${lat}, ${lon}`;
  return makeVenue({
    id, name: text(r.name) ?? '', lat: lat!, lon: lon!, type: fsqType(r, progress), brand: chainName(r),
    address: clean({
      street_address: text(r.address), city: text(r.locality) ?? text(r.post_town), state: regionName(text(r.region)),
      postal_code: text(r.postcode), country: text(r.country),
    }),
  });
}

function fsqType(r: ParquetRow, progress: Progress): VenueType {
  const ids = texts(r.fsq_category_ids);
  for (const id of ids) { const t = typeByFsqId(id); if (t) return t; }
  const labels = texts(r.fsq_category_labels);
  for (const label of labels) { const t = typeByName(label.slice(label.lastIndexOf('>') + 1)); if (t) return t; }
  if (ids.length || labels.length) progress.unmappedCategory(ids[0] ?? labels[0]);
  return UNKNOWN;
}

function chainName(r: ParquetRow): string | undefined {
  const named = text(r.chain_name);
  if (named || !Array.isArray(r.chains)) return named;
  const first = r.chains[0] as Record<string, unknown> | undefined;
  return text(first?.name) ?? text(first?.chain_name);
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
