/**
 * Estimated addresses: a venue's own address fields completed with city, state and country
 * from the offline gazetteer (places.ts), and formatted the way the interface shows them.
 */
import { countryAt, nearestPlace, type Place } from './places.js';
import { cacheEntries } from '../cache-budget.js';
import type { Address } from './types.js';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

// Intl.DisplayNames.of costs microseconds a call, and detection asks for a few countries over and over.
const countryNames = new Map<string, string>();

/** ISO 3166-1 alpha-2 → English name; anything else is returned as given. */
export function countryName(code: string): string {
  let name = countryNames.get(code);
  if (name === undefined) {
    if (!/^[A-Za-z]{2}$/.test(code)) return code;
    try { name = regionNames.of(code.toUpperCase()) ?? code; } catch { name = code; }
    if (countryNames.size >= 1000) countryNames.clear();
    countryNames.set(code, name);
  }
  return name;
}

// Detection estimates an address for every visit: the answer depends only on the point's cell
// (placeAt), so it is kept per cell beside the place, and handed out as a copy.
const estimates = new Map<number, Address>();
/** Cells kept per thread, in each of the two maps: bounded by DWELL_CACHE_MB (cache-budget.ts). */
const CELLS_MAX = cacheEntries('addressCells');

/** City, state and country for an arbitrary point (empty when no place is within 50 km). */
export function estimateAddress(lat: number, lon: number): Address {
  const key = cellKey(lat, lon);
  let a = estimates.get(key);
  if (a === undefined) {
    a = completeAddress({}, lat, lon);
    if (estimates.size >= CELLS_MAX) estimates.clear();
    estimates.set(key, a);
  }
  return { ...a };
}

// Venues cluster, so neighbours share a ~100 m cell's answer (small enough not to blur borders); bounded so a planet import stays small.
const cache = new Map<number, Place | null>();
const cellKey = (lat: number, lon: number): number => Math.round((lat + 90) * 1000) * 400_000 + Math.round((lon + 180) * 1000);

/** The gazetteer place of a point, searched within its country (country-coder's borders, in the place database). */
export function placeAt(lat: number, lon: number): Place | undefined {
  const key = cellKey(lat, lon);
  let p = cache.get(key);
  if (p === undefined) {
    const cc = countryAt(lat, lon);
    p = nearestPlace(lat, lon, cc) ?? null;
    if (cache.size >= CELLS_MAX) cache.clear();
    cache.set(key, p);
  }
  return p ?? undefined;
}

/**
 * Fills what a source address lacks. Source fields win; the estimate's state is only used when
 * its country agrees with the source's (a border venue keeps its own country's state).
 */
export function completeAddress(src: Address & { country_code?: string }, lat: number, lon: number): Address {
  const place = src.city && src.state && src.country ? undefined : placeAt(lat, lon);
  const cc = src.country_code ?? (place && (!src.country || countryName(place.country) === src.country) ? place.country : undefined);
  const a: Address = {};
  if (src.street_address) a.street_address = src.street_address;
  a.city = src.city ?? place?.name;
  const samePlace = place && (!src.country || countryName(place.country) === src.country);
  a.state = src.state ?? (samePlace ? place?.admin1Name : undefined);
  a.country = src.country ?? (place ? countryName(place.country) : undefined);
  if (src.postal_code) a.postal_code = src.postal_code;
  const stateCode = cc === 'US' ? usStateCode(src.state, samePlace ? place?.admin1Code : undefined) : undefined;
  if (a.city) a.formatted_city = stateCode ? `${a.city}, ${stateCode}` : a.city;
  if (a.city) a.formatted_address = formatAddress(a, stateCode);
  for (const k of Object.keys(a) as Array<keyof Address>) if (a[k] === undefined) delete a[k];
  return a;
}

function usStateCode(state: string | undefined, admin1Code: string | undefined): string | undefined {
  if (state && /^[A-Z]{2}$/.test(state)) return state;
  return admin1Code && /^[A-Z]{2}$/.test(admin1Code) ? admin1Code : undefined;
}

function formatAddress(a: Address, stateCode: string | undefined): string {
  const locality = stateCode
    ? `${a.city}, ${stateCode}${a.postal_code ? ' ' + a.postal_code : ''}`
    : `${a.postal_code ? a.postal_code + ' ' : ''}${a.city}`;
  const parts = [a.street_address, locality];
  if (a.country && a.country !== a.city && !(stateCode && a.country === 'United States')) parts.push(a.country);
  return parts.filter(Boolean).join(', ');
}

// Countries that write the house number after the street name.
const NUMBER_AFTER = new Set('AT BE CH CZ DE DK EE ES FI HR HU IS IT LT LV NL NO PL PT RO RS SE SI SK TR BR AR CL MX'.split(' '));

/** "30 Boulevard Princesse Charlotte" or "Hauptstraße 30", by country convention. */
export function streetLine(street: string | undefined, housenumber: string | undefined, countryCode?: string): string | undefined {
  if (!street) return housenumber || undefined;
  if (!housenumber) return street;
  return countryCode && NUMBER_AFTER.has(countryCode.toUpperCase()) ? `${street} ${housenumber}` : `${housenumber} ${street}`;
}
