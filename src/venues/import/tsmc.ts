/**
 * Foursquare TSMC2014 check-ins → venues: the distinct venue ids, each at the median of its
 * check-in coordinates (robust to the odd mis-geocoded check-in), with the check-in count as
 * popularity. Reads the original tab-separated file (no header: userId, venueId,
 * venueCategoryId, venueCategory, lat, lon, tzOffset, utcTime) or CSV copies with a header
 * (UserId, PoiId, PoiCategoryId, PoiCategoryName, Latitude, Longitude, …).
 * Check-ins are grouped in memory: O(check-ins) numbers, ~30 MB for the 573k-row TSMC files.
 */
import { validLatLon } from '../geo.js';
import { UNKNOWN } from '../taxonomy.js';
import type { Venue } from '../types.js';
import { resolveCategory } from './categories.js';
import { splitCsvLine } from './csv.js';
import { readLines } from './lines.js';
import type { Progress } from './report.js';
import { makeVenue } from './venue.js';

interface Cols { sep: string; venue: number; catId: number; catName: number; lat: number; lon: number; width: number }
interface Acc { line: number; catId: string; catName: string; lat: number[]; lon: number[] }

const TSV: Cols = { sep: '\t', venue: 1, catId: 2, catName: 3, lat: 4, lon: 5, width: 8 };
const HEADER_NAMES = { venue: ['poiid', 'venueid'], catId: ['poicategoryid', 'venuecategoryid'], catName: ['poicategoryname', 'venuecategory'], lat: ['latitude', 'lat'], lon: ['longitude', 'lon', 'lng'] };

/** Columns from a header line, or undefined when the first line is already data. */
function headerCols(line: string): Cols | undefined {
  const sep = line.includes('\t') ? '\t' : ',';
  const names = splitCsvLine(line, sep).map((s) => s.trim().toLowerCase());
  const find = (alts: string[]): number => names.findIndex((n) => alts.includes(n));
  const venue = find(HEADER_NAMES.venue);
  if (venue < 0) return undefined;
  const cols = { sep, venue, catId: find(HEADER_NAMES.catId), catName: find(HEADER_NAMES.catName), lat: find(HEADER_NAMES.lat), lon: find(HEADER_NAMES.lon), width: 0 };
  // Only the columns we read must be present: the CSV copies add trailing derived columns.
  cols.width = Math.max(cols.venue, cols.catId, cols.catName, cols.lat, cols.lon) + 1;
  for (const [k, v] of Object.entries(cols)) if (v === -1) throw new Error(`TSMC header has a venue id column but no ${k} column: ${line.slice(0, 200)}`);
  return cols;
}

export async function readTsmc(file: string, progress: Progress, emit: (v: Venue, line: number) => void): Promise<void> {
  const venues = new Map<string, Acc>();
  let cols: Cols | undefined;
  for await (const { no, text, tooLong } of readLines(file, progress)) {
    if (text.trim() === '' && !tooLong) continue;
    if (!cols) {
      const header = headerCols(text);
      cols = header ?? (text.includes('\t') ? TSV : { ...TSV, sep: ',' });
      if (header) continue;
    }
    progress.row();
    if (tooLong) { progress.badRow(no, 'line longer than 1 MiB'); continue; }
    const f = splitCsvLine(text, cols.sep);
    if (f.length < cols.width) { progress.badRow(no, `expected ${cols.width} fields, got ${f.length}`); continue; }
    const id = f[cols.venue].trim();
    const lat = Number(f[cols.lat]);
    const lon = Number(f[cols.lon]);
    if (id === '') { progress.badRow(no, 'empty venue id'); continue; }
    if (f[cols.lat].trim() === '' || f[cols.lon].trim() === '' || !validLatLon(lat, lon)) {
      progress.badRow(no, `expected lat in [-90, 90] and lon in [-180, 180], got ${JSON.stringify(f[cols.lat])}, ${JSON.stringify(f[cols.lon])}`);
      continue;
    }
    let acc = venues.get(id);
    if (!acc) venues.set(id, (acc = { line: no, catId: f[cols.catId].trim(), catName: f[cols.catName].trim(), lat: [], lon: [] }));
    acc.lat.push(lat);
    acc.lon.push(lon);
  }
  progress.phase = 'venues';
  for (const [id, acc] of venues) {
    let type = resolveCategory(acc.catId, acc.catName);
    if (!type) { progress.unmappedCategory(acc.catName || acc.catId); type = UNKNOWN; }
    emit(makeVenue({ id, name: '', lat: median(acc.lat), lon: median(acc.lon), type, popularity: acc.lat.length }), acc.line);
  }
}

export function median(xs: number[]): number {
  const s = Float64Array.from(xs).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
