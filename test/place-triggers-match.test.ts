/**
 * Place trigger matching, pure (src/place-triggers/compile.ts, match.ts): which venues a trigger
 * set matches, and entry, exit and dwell per venue and trigger, on a handful of venues held in
 * memory (the venue store's interface, searched by brute force).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTriggers, radiusFor, triggersOf, OWN_MIN_M } from '../src/place-triggers/compile.js';
import { classify, distanceM, INSIDE, OUTSIDE } from '../src/geofences/match.js';
import { evaluatePlaces, evaluatePlacesOf, placesAlone, placesAloneOf, type PlaceView } from '../src/place-triggers/match.js';
import { stampMs } from '../src/time/stamp.js';
import type { Signal } from '../src/schemas/detect-request.js';
import type { StoredPlaceTrigger } from '../src/schemas/place-trigger.js';
import type { VenueStore } from '../src/venues/store.js';
import type { Venue } from '../src/venues/types.js';
import { haversineM } from '../src/geo/distance.js';
import { typeById } from '../src/venues/taxonomy.js';

const venue = (id: string, lat: number, lon: number, type_id: number, brand?: string, radius = 20): Venue => ({
  id, name: id, lat, lon, type_id, type: typeById(type_id)?.type ?? 'Unknown', category: typeById(type_id)?.category ?? 'Unknown',
  sub_category: typeById(type_id)?.type ?? 'Unknown', radius, popularity: -1, ...(brand ? { brand } : {}),
});

function memoryStore(venues: Venue[]): VenueStore {
  return {
    id: 'mem', count: venues.length, counted: NaN,
    near: (lat, lon, r, max) => venues.map((v) => ({ venue: v, distance: haversineM(lat, lon, v.lat, v.lon) }))
      .filter((x) => x.distance <= r).sort((a, b) => a.distance - b.distance).slice(0, max),
    get: (i) => venues[i],
    indexOf: (id) => { const i = venues.findIndex((v) => v.id === id); return i < 0 ? undefined : i; },
    close: () => undefined,
  };
}

let n = 0;
const trigger = (t: Partial<StoredPlaceTrigger>): StoredPlaceTrigger => ({
  id: `pt_${String(++n).padStart(24, '0')}`, app_key: 'a', brand: null, type_id: null, radius: null, dwell: 0, tag: null,
  push_text: null, metadata: null, created_at: '', updated_at: '', ...t,
});

const LAT = 43.73, LON = 7.42;
const CAFE = 426, CAFES = 424, BANK = 122;
const shop = venue('shop', LAT, LON, CAFE, 'Starbucks', 10);
const bank = venue('bank', LAT + 0.01, LON, BANK, 'UBS');
const fix = (s: number, lat: number, lon: number, accuracy = 5) => ({ timestamp: new Date(Date.UTC(2024, 5, 1, 8, 0, s)).toISOString(), lat, long: lon, accuracy });
const FAR = LAT - 0.005;

test('brand matches without regard to case, a type matches every type below it, both together match both', () => {
  const byBrand = trigger({ brand: 'starBUCKS' });
  const byType = trigger({ type_id: CAFES });
  const both = trigger({ brand: 'UBS', type_id: CAFES });
  const m = compileTriggers([byBrand, byType, both]);
  assert.deepEqual(triggersOf(m, shop).map((c) => c.rec.id).sort(), [byBrand.id, byType.id].sort());
  assert.deepEqual(triggersOf(m, bank), []);
  assert.deepEqual(triggersOf(m, venue('x', 0, 0, 427)).map((c) => c.rec.id), [byType.id]);
  // A trigger with a radius reaches that far; one on own radii reaches the largest default of its types, at least OWN_MIN_M.
  assert.equal(compileTriggers([trigger({ brand: 'x', radius: 700 })]).reach, 700);
  assert.equal(compileTriggers([trigger({ brand: 'x' })]).reach, OWN_MIN_M);
});

test('entry, dwell once, exit; a straddling fix changes nothing; two triggers, two events', () => {
  const a = trigger({ brand: 'Starbucks', radius: 50, dwell: 60 });
  const b = trigger({ type_id: CAFE });
  const view: PlaceView = { matcher: compileTriggers([a, b]), venues: memoryStore([shop, bank]) };
  const first = evaluatePlaces(view, undefined, [fix(0, FAR, LON), fix(10, LAT, LON), fix(40, LAT, LON), fix(70, LAT, LON), fix(80, LAT, LON)]);
  assert.deepEqual(first.events.map((e) => `${e.type}:${e.trigger_id === a.id ? 'a' : 'b'}`), ['entry:a', 'entry:b', 'dwell:a']);
  assert.equal(first.events[2].timestamp, fix(70, 0, 0).timestamp);
  assert.equal(first.changed, true);
  // 45 m north with 20 m accuracy straddles a's 50 m edge and is clearly outside b's 10 m: b exits only.
  const edge = evaluatePlaces(view, first.presence, [fix(90, LAT + 0.0004, LON, 20)]);
  assert.deepEqual(edge.events.map((e) => `${e.type}:${e.trigger_id === a.id ? 'a' : 'b'}`), ['exit:b']);
  const out = evaluatePlaces(view, edge.presence, [fix(100, FAR, LON)]);
  assert.deepEqual(out.events.map((e) => `${e.type}:${e.trigger_id === a.id ? 'a' : 'b'}`), ['exit:a']);
  assert.deepEqual(out.presence.in, {});
  // Older fixes than the presence's last change are skipped: a retried request repeats nothing.
  assert.deepEqual(evaluatePlaces(view, out.presence, [fix(10, LAT, LON)]).events, []);
});

test('a deleted trigger or a venue gone from the store leaves presence silently', () => {
  const a = trigger({ brand: 'Starbucks', radius: 50 });
  const inside = evaluatePlaces({ matcher: compileTriggers([a]), venues: memoryStore([shop]) }, undefined, [fix(0, LAT, LON)]).presence;
  const noTrigger = evaluatePlaces({ matcher: compileTriggers([trigger({ brand: 'other' })]), venues: memoryStore([shop]) }, inside, [fix(10, FAR, LON)]);
  assert.deepEqual([noTrigger.events, noTrigger.presence.in, noTrigger.changed], [[], {}, true]);
  const noVenue = evaluatePlaces({ matcher: compileTriggers([a]), venues: memoryStore([bank]) }, inside, [fix(10, FAR, LON)]);
  assert.deepEqual([noVenue.events, noVenue.presence.in], [[], {}]);
});

test('a fix vaguer than any reach searches nothing and enters nothing', () => {
  const view: PlaceView = { matcher: compileTriggers([trigger({ brand: 'Starbucks', radius: 50 })]), venues: memoryStore([shop]) };
  assert.deepEqual(evaluatePlaces(view, undefined, [fix(0, LAT, LON, 500)]).events, []);
});

test('without a user: the earliest fix says where the device is, no entry and no dwell for it', () => {
  const a = trigger({ brand: 'Starbucks', radius: 50, dwell: 10 });
  const view: PlaceView = { matcher: compileTriggers([a]), venues: memoryStore([shop]) };
  assert.deepEqual(placesAlone(view, [fix(0, LAT, LON), fix(30, LAT, LON), fix(60, FAR, LON)]).map((e) => e.type), ['exit']);
  assert.deepEqual(placesAlone(view, [fix(0, FAR, LON), fix(30, LAT, LON), fix(60, LAT, LON)]).map((e) => e.type), ['entry', 'dwell']);
});

test('the cells find every entry brute force finds: seeded venues, triggers and walks, with and without the box search', () => {
  let seed = 5;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const types = [CAFE, BANK, 427];
  const venues = Array.from({ length: 400 }, (_, i) => venue(`v${i}`, LAT + (rnd() - 0.5) * 0.01, LON + (rnd() - 0.5) * 0.014,
    types[i % 3], rnd() < 0.6 ? `Brand ${i % 5}` : undefined, 5 + rnd() * 90));
  const triggers = [trigger({ brand: 'brand 0' }), trigger({ brand: 'Brand 1', radius: 120 }), trigger({ type_id: CAFES }), trigger({ brand: 'Brand 2', type_id: BANK, dwell: 30 })];
  const matcher = compileTriggers(triggers);
  const mem = memoryStore(venues);
  const boxed: VenueStore = { ...mem, id: 'boxed', boxIndexes: (lat, lon, r) => venues.flatMap((v, i) => (haversineM(lat, lon, v.lat, v.lon) <= r * 1.5 ? [i] : [])) };
  // The oracle: every venue and trigger measured at every fix.
  const brute = (fixes: ReturnType<typeof fix>[]) => {
    const inside = new Set<string>(), out: string[] = [];
    for (const f of fixes) {
      for (const key of [...inside]) {
        const [t, v] = key.split(' ');
        const c = matcher.byId.get(t)!, ven = venues.find((x) => x.id === v)!;
        if (classify(distanceM(f.lat, f.long, ven.lat, ven.lon) - radiusFor(c, ven), f.accuracy) === OUTSIDE) { inside.delete(key); out.push(`exit ${key} ${f.timestamp}`); }
      }
      if (f.accuracy >= matcher.reach) continue;
      for (const v of venues) {
        const d = distanceM(f.lat, f.long, v.lat, v.lon);
        if (d + f.accuracy > matcher.reach) continue;
        for (const c of triggersOf(matcher, v)) {
          const key = `${c.rec.id} ${v.id}`;
          if (inside.has(key) || classify(d - radiusFor(c, v), f.accuracy) !== INSIDE) continue;
          inside.add(key);
          out.push(`entry ${key} ${f.timestamp}`);
        }
      }
    }
    return out.sort();
  };
  let entries = 0, exits = 0;
  for (let walk = 0; walk < 20; walk++) {
    let lat = LAT + (rnd() - 0.5) * 0.008, lon = LON + (rnd() - 0.5) * 0.011;
    const fixes = Array.from({ length: 40 }, (_, k) => {
      lat += (rnd() - 0.5) * 0.0004; lon += (rnd() - 0.5) * 0.0005;
      return fix(k * 5, lat, lon, walk % 4 === 0 ? 0 : Math.floor(rnd() * 40));
    });
    const expected = brute(fixes);
    entries += expected.filter((e) => e.startsWith('entry')).length;
    exits += expected.filter((e) => e.startsWith('exit')).length;
    for (const store of [mem, boxed]) {
      const got = evaluatePlaces({ matcher, venues: store }, undefined, fixes).events
        .filter((e) => e.type !== 'dwell').map((e) => `${e.type} ${e.trigger_id} ${e.venue.id} ${e.timestamp}`).sort();
      assert.deepEqual(got, expected, `walk ${walk}, store ${store.id}`);
    }
  }
  assert.ok(entries > 100 && exits > 50, `a test of many crossings: ${entries} entries, ${exits} exits`);
});

test('the request\'s signals with the times detection parsed give what its fixes give: out of order, equal times, an unlocated signal', () => {
  const a = trigger({ brand: 'Starbucks', radius: 50, dwell: 20 });
  const b = trigger({ type_id: CAFE });
  const view: PlaceView = { matcher: compileTriggers([a, b]), venues: memoryStore([shop, bank]) };
  // Out of time order, two fixes at one time (request order decides between them), a signal without a location.
  const fixes = [fix(40, LAT, LON), fix(0, FAR, LON), fix(10, LAT, LON), fix(10, FAR, LON), fix(70, LAT, LON, 8), fix(90, FAR, LON)];
  const signals = [...fixes.map((f) => ({ timestamp: f.timestamp, location: { lat: f.lat, long: f.long, accuracy: f.accuracy } })), { timestamp: fix(50, 0, 0).timestamp }] as Signal[];
  const timed = { signals, times: Float64Array.from(signals, (s) => stampMs(s.timestamp)) };
  const fromFixes = evaluatePlaces(view, undefined, fixes);
  const at = (stamp: string) => (stampMs(stamp) - stampMs(fix(0, 0, 0).timestamp)) / 1000;
  assert.deepEqual(fromFixes.events.map((e) => `${e.type}:${e.trigger_id === a.id ? 'a' : 'b'}@${at(e.timestamp)}`),
    ['entry:a@10', 'entry:b@10', 'exit:a@10', 'exit:b@10', 'entry:a@40', 'entry:b@40', 'dwell:a@70', 'exit:a@90', 'exit:b@90']);
  assert.deepEqual(evaluatePlacesOf(view, undefined, timed), fromFixes);
  // Carried into the next request: the same presence either way, and nothing older than its last change repeats.
  const inside = evaluatePlaces(view, undefined, fixes.slice(0, 3)).presence;
  assert.deepEqual(evaluatePlacesOf(view, inside, timed), evaluatePlaces(view, inside, fixes));
  assert.deepEqual(placesAloneOf(view, timed), placesAlone(view, fixes));
});
