/**
 * Writes small Parquet files in the published schemas of Foursquare OS Places and Overture
 * places (see the comments of src/venues/import/fsq.ts and overture.ts), with hyparquet-writer,
 * so the importers are tested on files shaped like the real ones: nested lists and structs,
 * WKB geometry with GeoParquet metadata, snappy or gzip pages, several row groups.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { geojsonToWkb, parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';

type Codec = 'SNAPPY' | 'GZIP' | 'UNCOMPRESSED';
interface Col { name: string; schema: SchemaElement[]; data: unknown[] }

const S = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
const D = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
const F = (name: string): SchemaElement => ({ name, type: 'FLOAT', repetition_type: 'OPTIONAL' });
const group = (name: string, children: SchemaElement[][], extra: Partial<SchemaElement> = {}): SchemaElement[] =>
  [{ name, repetition_type: 'OPTIONAL', num_children: children.length, ...extra }, ...children.flat()];
/** A 3-level LIST of `element` (the standard layout Spark, DuckDB and Arrow write). */
const list = (name: string, element: SchemaElement[]): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { ...element[0], name: 'element' }, ...element.slice(1),
];
const strings = (name: string): SchemaElement[] => list(name, [S('element')]);
/** map<string,string> as MAP / key_value / key, value. */
const map = (name: string): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'MAP' },
  { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
  { name: 'key', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
  S('value'),
];

function write(path: string, cols: Col[], opts: { rowGroupSize?: number; codec?: Codec; geo?: boolean } = {}): void {
  const schema: SchemaElement[] = [{ name: 'schema', num_children: cols.length }, ...cols.flatMap((c) => c.schema)];
  const kvMetadata = opts.geo
    ? [{ key: 'geo', value: JSON.stringify({ version: '1.1.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'], crs: null } } }) }]
    : undefined;
  const buf = parquetWriteBuffer({
    schema, columnData: cols.map((c) => ({ name: c.name, data: c.data as never })), kvMetadata,
    rowGroupSize: opts.rowGroupSize ?? 1000, codec: opts.codec ?? 'SNAPPY', statistics: false,
    // GZIP pages prove the reader's codecs beyond snappy come through (hyparquet-compressors).
    compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) },
  });
  writeFileSync(path, new Uint8Array(buf));
}

const wkb = (lon: number, lat: number): Uint8Array => geojsonToWkb({ type: 'Point', coordinates: [lon, lat] });

export interface FsqPlace {
  fsq_place_id: string | null; name: string | null; latitude: number | null; longitude: number | null;
  address?: string; locality?: string; region?: string; postcode?: string; country?: string; post_town?: string;
  date_created?: string; date_refreshed?: string; date_closed?: string | null;
  fsq_category_ids?: string[] | null; fsq_category_labels?: string[] | null; tel?: string; website?: string;
}

/** FSQ OS Places, every column of the published schema in its order. */
export function writeFsqParquet(path: string, rows: FsqPlace[], opts: { rowGroupSize?: number; codec?: Codec } = {}): void {
  const col = (name: string, schema: SchemaElement[], f: (r: FsqPlace) => unknown): Col => ({ name, schema, data: rows.map((r) => f(r) ?? null) });
  const s = (name: keyof FsqPlace): Col => col(name, [S(name)], (r) => r[name]);
  write(path, [
    s('fsq_place_id'), s('name'), col('latitude', [D('latitude')], (r) => r.latitude), col('longitude', [D('longitude')], (r) => r.longitude),
    s('address'), s('locality'), s('region'), s('postcode'), col('admin_region', [S('admin_region')], () => null), s('post_town'),
    col('po_box', [S('po_box')], () => null), s('country'), s('date_created'), s('date_refreshed'), s('date_closed'),
    s('tel'), s('website'), col('email', [S('email')], () => null), col('facebook_id', [S('facebook_id')], () => null),
    col('instagram', [S('instagram')], () => null), col('twitter', [S('twitter')], () => null),
    col('fsq_category_ids', strings('fsq_category_ids'), (r) => r.fsq_category_ids),
    col('fsq_category_labels', strings('fsq_category_labels'), (r) => r.fsq_category_labels),
    col('placemaker_url', [S('placemaker_url')], (r) => r.fsq_place_id && `https://foursquare.com/placemakers/review-place/${r.fsq_place_id}`),
    col('geom', [{ name: 'geom', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' }], (r) => (r.latitude == null || r.longitude == null ? null : wkb(r.longitude, r.latitude))),
    col('bbox', group('bbox', [[D('xmin')], [D('ymin')], [D('xmax')], [D('ymax')]]), (r) => (r.latitude == null || r.longitude == null ? null : { xmin: r.longitude, ymin: r.latitude, xmax: r.longitude, ymax: r.latitude })),
    col('unresolved_flags', strings('unresolved_flags'), () => null),
  ], opts);
}

export interface OverturePlace {
  id: string; lon: number; lat: number; geometry?: Uint8Array | null; name?: string;
  category?: string; alternate?: string[]; basic_category?: string; taxonomy?: { primary: string; hierarchy: string[]; alternates?: string[] };
  brand?: string; address?: { freeform?: string; locality?: string; postcode?: string; region?: string; country?: string };
  confidence?: number; operating_status?: 'open' | 'permanently_closed' | 'temporarily_closed' | null;
}

/** Overture places GeoParquet: WKB geometry with `geo` metadata, nested names/brand/addresses. */
export function writeOvertureParquet(path: string, rows: OverturePlace[], opts: { rowGroupSize?: number; codec?: Codec } = {}): void {
  const col = (name: string, schema: SchemaElement[], f: (r: OverturePlace) => unknown): Col => ({ name, schema, data: rows.map((r) => f(r) ?? null) });
  const names = group('names', [[S('primary')], map('common')]);
  write(path, [
    col('id', [S('id')], (r) => r.id),
    col('geometry', [{ name: 'geometry', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL' }], (r) => (r.geometry === undefined ? wkb(r.lon, r.lat) : r.geometry)),
    col('bbox', group('bbox', [[F('xmin')], [F('xmax')], [F('ymin')], [F('ymax')]]), (r) => ({ xmin: r.lon, xmax: r.lon, ymin: r.lat, ymax: r.lat })),
    col('version', [{ name: 'version', type: 'INT32', repetition_type: 'OPTIONAL' }], () => 0),
    col('sources', list('sources', group('element', [[S('property')], [S('dataset')], [S('record_id')], [S('update_time')], [D('confidence')]])),
      (r) => [{ property: '', dataset: 'meta', record_id: r.id, update_time: '2025-01-01T00:00:00.000Z', confidence: r.confidence ?? 0.9 }]),
    col('names', names, (r) => (r.name === undefined ? null : { primary: r.name, common: null })),
    col('categories', group('categories', [[S('primary')], strings('alternate')]), (r) => (r.category === undefined ? null : { primary: r.category, alternate: r.alternate ?? null })),
    col('basic_category', [S('basic_category')], (r) => r.basic_category),
    col('taxonomy', group('taxonomy', [[S('primary')], strings('hierarchy'), strings('alternates')]), (r) => r.taxonomy && { primary: r.taxonomy.primary, hierarchy: r.taxonomy.hierarchy, alternates: r.taxonomy.alternates ?? null }),
    col('confidence', [D('confidence')], (r) => r.confidence ?? 0.9),
    col('websites', strings('websites'), () => null),
    col('socials', strings('socials'), () => null),
    col('emails', strings('emails'), () => null),
    col('phones', strings('phones'), () => null),
    col('brand', group('brand', [[S('wikidata')], group('names', [[S('primary')], map('common')])]), (r) => (r.brand ? { wikidata: null, names: { primary: r.brand, common: null } } : null)),
    col('addresses', list('addresses', group('element', [[S('freeform')], [S('locality')], [S('postcode')], [S('region')], [S('country')]])), (r) => (r.address ? [r.address] : null)),
    col('operating_status', [S('operating_status')], (r) => (r.operating_status === undefined ? 'open' : r.operating_status)),
  ], { ...opts, geo: true });
}

/**
 * The two sample files of test/fixtures/venues (made-up places around Monte-Carlo, in the
 * published schemas), rewritten by  node dist/src/devkit/places-parquet.js <dir>
 */
export function writeSamples(dir: string): void {
  const at = (i: number) => ({ lat: 43.7390 + (i % 4) * 0.0004, lon: 7.4260 + Math.floor(i / 4) * 0.0005 });
  const fsq: Array<[string, string, string | null]> = [
    ['Sample Coffee Shop', '4bf58dd8d48988d1e0931735', null], ['Sample Casino', '4bf58dd8d48988d17c941735', null],
    ['Sample Hotel', '4bf58dd8d48988d1fa931735', null], ['Sample Pharmacy', '4bf58dd8d48988d10f951735', null],
    ['Sample Bakery', '4bf58dd8d48988d16a941735', null], ['Sample Closed Bar', '4bf58dd8d48988d116941735', '2024-02-01'],
  ];
  writeFsqParquet(`${dir}/fsq-os-places-sample.parquet`, fsq.map(([name, cat, closed], i) => ({
    fsq_place_id: `sample${String(i).padStart(18, '0')}`, name, latitude: at(i).lat, longitude: at(i).lon, locality: 'Monaco', country: 'MC',
    date_created: '2020-01-01', date_refreshed: '2025-01-01', date_closed: closed, fsq_category_ids: [cat],
  })));
  const ov: Array<[string, string, OverturePlace['operating_status'], string?]> = [
    ['Sample Café', 'cafe', 'open'], ['Sample Casino', 'casino', 'open', 'Sample Brand'], ['Sample Hotel', 'hotel', 'open'],
    ['Sample Pharmacy', 'pharmacy', 'open'], ['Sample Bakery', 'bakery', 'temporarily_closed'], ['Sample Closed Bar', 'bar', 'permanently_closed'],
  ];
  writeOvertureParquet(`${dir}/overture-places-sample.parquet`, ov.map(([name, category, operating_status, brand], i) => ({
    id: `sample-overture-${i}`, ...at(i), name, category, operating_status, brand, address: { locality: 'Monaco', country: 'MC' },
  })));
}

if (import.meta.url === `file://${process.argv[1]}`) writeSamples(process.argv[2] ?? 'test/fixtures/venues');
