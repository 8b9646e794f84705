/**
 * One JSON venue a line: {id, name, category, category_id?, lat, lon, address?, brand?,
 * popularity?|checkins?} (the format of shared/data/vd/*.jsonl.gz). Address fields may be ours
 * (street_address, postal_code, …) or OSM-style (street, housenumber, postcode, …).
 */
import { validLatLon } from '../geo.js';
import { UNKNOWN } from '../taxonomy.js';
import type { Address, Venue } from '../types.js';
import { streetLine } from '../address.js';
import { resolveCategory } from './categories.js';
import { readLines } from './lines.js';
import type { Progress } from './report.js';
import { makeVenue } from './venue.js';

type Row = Record<string, unknown>;

export async function readJsonl(file: string, progress: Progress, emit: (v: Venue, line: number) => void): Promise<void> {
  for await (const { no, text, tooLong } of readLines(file, progress)) {
    if (text.trim() === '' && !tooLong) continue;
    progress.row();
    if (tooLong) { progress.badRow(no, 'line longer than 1 MiB'); continue; }
    let row: unknown;
    try { row = JSON.parse(text); } catch (err) { progress.badRow(no, `invalid JSON: ${(err as Error).message}`); continue; }
    const result = toVenue(row, progress);
    if (typeof result === 'string') progress.badRow(no, result);
    else emit(result, no);
  }
}

/** A venue, or the reason the row is bad. */
function toVenue(row: unknown, progress: Progress): Venue | string {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return `expected a JSON object, got ${Array.isArray(row) ? 'an array' : typeof row}`;
  const r = row as Row;
  const id = typeof r.id === 'number' ? String(r.id) : r.id;
  if (typeof id !== 'string' || id === '') return `expected a non-empty string id, got ${JSON.stringify(r.id)}`;
  if (!validLatLon(r.lat, r.lon)) return `expected numeric lat in [-90, 90] and lon in [-180, 180], got lat=${JSON.stringify(r.lat)} lon=${JSON.stringify(r.lon)}`;
  if (r.name != null && typeof r.name !== 'string') return `expected name to be a string or null, got ${typeof r.name}`;
  const pop = r.popularity ?? r.checkins;
  if (pop != null && !(typeof pop === 'number' && Number.isFinite(pop) && pop >= 0)) return `expected popularity/checkins to be a non-negative number, got ${JSON.stringify(pop)}`;
  const categoryId = typeof r.category_id === 'string' ? r.category_id : undefined;
  const category = typeof r.category === 'string' ? r.category : undefined;
  let type = resolveCategory(categoryId, category);
  if (!type) {
    progress.unmappedCategory(category ?? categoryId ?? '(none)');
    type = UNKNOWN;
  }
  const radius = typeof r.radius === 'number' && r.radius > 0 ? r.radius : undefined;
  return makeVenue({
    id, name: (r.name as string | null) ?? '', lat: r.lat as number, lon: r.lon as number, type, radius,
    popularity: pop as number | undefined,
    brand: typeof r.brand === 'string' ? r.brand : undefined,
    address: toAddress(r.address),
  });
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined);

function toAddress(a: unknown): Address | undefined {
  if (typeof a !== 'object' || a === null) return undefined;
  const r = a as Row;
  const country = str(r.country) ?? str(r.country_code);
  const street = str(r.street_address) ?? streetLine(str(r.street), str(r.housenumber), country);
  const out: Address = { street_address: street, city: str(r.city), state: str(r.state), country, postal_code: str(r.postal_code) ?? str(r.postcode) };
  for (const k of Object.keys(out) as Array<keyof Address>) if (out[k] === undefined) delete out[k];
  return out;
}
