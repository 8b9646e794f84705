/** Geofence geometry: polygon validation, exact point tests with accuracy, and the index against brute force. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { circle, preparePolygon, shapeOf, type Vertex } from '../src/geofences/geometry.js';
import { M_PER_DEG, haversineM } from '../src/geo/distance.js';
import { classify, distanceM, INSIDE, OUTSIDE, STRADDLE, polygonSignedDistance, lonNear, circleSignedDistance } from '../src/geofences/match.js';
import { FenceIndex } from '../src/geofences/index.js';
import { DwellError } from '../src/errors.js';

const ring = (pts: Array<[number, number]>): Vertex[] => pts.map(([long, lat]) => ({ lat, long }));

function classOf(vs: Vertex[], lat: number, long: number, acc = 0): number {
  const p = preparePolygon(vs, '/location/polygon');
  const mid = (p.bbox[0] + p.bbox[2]) / 2;
  return classify(polygonSignedDistance(lat, lonNear(long, mid), p.coords, 0, p.coords.length / 2), acc);
}

function refused(vs: Vertex[], pathPattern: RegExp, messagePattern: RegExp) {
  assert.throws(() => preparePolygon(vs, '/location/polygon'), (err: unknown) => {
    assert.ok(err instanceof DwellError);
    assert.equal(err.code, 'invalid_request');
    assert.match(err.path ?? '', pathPattern);
    assert.match(err.message, messagePattern);
    return true;
  });
}

// A "U" 3 km wide in Paris: the notch between the arms is outside.
const U = ring([[2.30, 48.85], [2.34, 48.85], [2.34, 48.88], [2.33, 48.88], [2.33, 48.86], [2.31, 48.86], [2.31, 48.88], [2.30, 48.88]]);

test('a concave polygon: the arms are inside, the notch between them is outside', () => {
  assert.equal(classOf(U, 48.87, 2.305), INSIDE, 'left arm');
  assert.equal(classOf(U, 48.87, 2.335), INSIDE, 'right arm');
  assert.equal(classOf(U, 48.855, 2.32), INSIDE, 'base');
  assert.equal(classOf(U, 48.87, 2.32), OUTSIDE, 'notch');
  assert.equal(classOf(U, 48.90, 2.32), OUTSIDE, 'north of everything');
  // A ray from the notch crosses the right arm twice: the parity must still say outside.
  assert.equal(classOf(U, 48.875, 2.32), OUTSIDE);
});

test('a point on the edge belongs to the fence; with an accuracy circle it straddles', () => {
  assert.equal(classOf(U, 48.85, 2.32), INSIDE, 'on the southern edge');
  assert.equal(classOf(U, 48.87, 2.33), INSIDE, 'on the inner edge of the right arm');
  assert.equal(classOf(U, 48.88, 2.30), INSIDE, 'on a vertex');
  assert.equal(classOf(U, 48.85, 2.32, 5), STRADDLE);
  // 100 m inside the base, measured north from its southern edge.
  const lat = 48.85 + 100 / M_PER_DEG;
  assert.equal(classOf(U, lat, 2.32, 80), INSIDE);
  assert.equal(classOf(U, lat, 2.32, 120), STRADDLE);
  const outside = 48.85 - 100 / M_PER_DEG;
  assert.equal(classOf(U, outside, 2.32, 80), OUTSIDE);
  assert.equal(classOf(U, outside, 2.32, 120), STRADDLE);
});

test('a polygon across the antimeridian is one fence, from either side', () => {
  const fiji = ring([[179.8, -17.0], [-179.8, -17.0], [-179.8, -16.6], [179.8, -16.6]]);
  const p = preparePolygon(fiji, '/location/polygon');
  assert.ok(p.bbox[2] > 180, 'unwrapped past 180');
  assert.ok(p.bbox[2] - p.bbox[0] < 1, 'the short way round, not 359.6°');
  assert.equal(classOf(fiji, -16.8, 179.9), INSIDE);
  assert.equal(classOf(fiji, -16.8, -179.9), INSIDE);
  assert.equal(classOf(fiji, -16.8, 180), INSIDE);
  assert.equal(classOf(fiji, -16.8, 0), OUTSIDE);
  assert.equal(classOf(fiji, -16.8, 179.7), OUTSIDE);

  const index = new FenceIndex();
  index.upsert('fiji', p, Infinity);
  index.upsert('tonga-circle', circle(-16.8, -179.999, 2000), Infinity);
  const ids = (lat: number, lon: number) => { const n = index.query(lat, lon, 0, 0); return Array.from({ length: n }, (_, i) => index.idOf(index.hitSlots[i])).sort(); };
  assert.deepEqual(ids(-16.8, -179.9), ['fiji']);
  assert.deepEqual(ids(-16.8, 179.999), ['fiji', 'tonga-circle'], 'a circle across 180 is found from the west');
  assert.deepEqual(ids(-16.8, 10), []);
});

test('polygons that would be ambiguous are refused, naming the vertex', () => {
  refused(ring([[0, 0], [1, 1], [1, 0], [0, 1]]), /^\/location\/polygon\/\d+$/, /cross/);                   // bow tie
  refused(ring([[0, 0], [2, 0], [2, 2], [1, 0], [0, 2]]), /^\/location\/polygon\/\d+$/, /cross/);           // a vertex touching an edge
  refused(ring([[0, 0], [2, 0], [1, 0], [1, 1]]), /^\/location\/polygon\/\d+$/, /cross/);                   // folds back on itself
  refused(ring([[0, 0], [1, 0], [1, 0], [0, 1]]), /^\/location\/polygon\/2$/, /repeats/);
  refused(ring([[0, 0], [1, 1], [2, 2]]), /^\/location\/polygon$/, /no area/);
  refused(ring([[0, 80], [120, 80], [-120, 80]]), /^\/location\/polygon$/, /pole/);
  refused(ring([[0, 0], [0, 1], [1, 1]]).slice(0, 2), /^\/location\/polygon$/, /at least 3/);
  // A closed ring in the GeoJSON habit is fine: the closing vertex is ignored.
  assert.equal(preparePolygon(ring([[0, 0], [1, 0], [1, 1], [0, 0]]), '/p').coords.length, 6);
});

test('distances: the equirectangular approximation stays within 0.1 % of the sphere at fence scale', () => {
  for (const lat of [0, 45, 60, 70]) {
    for (const bearing of [0, 45, 90, 135]) {
      const d = 100_000, b = (bearing * Math.PI) / 180;
      const lat2 = lat + (d * Math.cos(b)) / M_PER_DEG, lon2 = 10 + (d * Math.sin(b)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180));
      const exact = haversineM(lat, 10, lat2, lon2);
      assert.ok(Math.abs(distanceM(lat, 10, lat2, lon2) - exact) / exact < 1e-3, `lat ${lat} bearing ${bearing}`);
    }
  }
});

test('a circle with the accuracy circle: inside, straddling, outside', () => {
  const at = (m: number) => 48.85 + m / M_PER_DEG;
  const d = (m: number) => circleSignedDistance(at(m), 2.35, 48.85, 2.35, 100);
  assert.equal(classify(d(50), 40), INSIDE);
  assert.equal(classify(d(50), 60), STRADDLE);
  assert.equal(classify(d(200), 50), OUTSIDE);
  assert.equal(classify(d(200), 150), STRADDLE);
  assert.equal(classify(d(100), 0), INSIDE, 'on the circle');
});

test('the index finds exactly what brute force finds, through inserts, updates, deletes and rebuilds', () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const index = new FenceIndex();
  const truth = new Map<string, ReturnType<typeof shapeOf>>();
  const make = () => (rnd() < 0.7
    ? shapeOf({ lat: 43.7 + rnd() * 0.1, long: 7.4 + rnd() * 0.1, radius: 20 + rnd() * 800 })
    : shapeOf({ polygon: [0, 1, 2, 3].map((k) => ({ lat: 43.7 + rnd() * 0.1 + (k >> 1) * 0.003, long: 7.4 + rnd() * 0.1 * 0 + 7e-4 * k + (k === 3 ? -0.0021 : 0) + 0.05 })) }));
  for (let i = 0; i < 6000; i++) {
    const id = 'f' + Math.floor(rnd() * 5000);
    if (rnd() < 0.15 && truth.has(id)) { truth.delete(id); assert.ok(index.remove(id)); continue; }
    const s = make();
    truth.set(id, s);
    index.upsert(id, s, Infinity);
  }
  assert.equal(index.size, truth.size);
  for (let q = 0; q < 500; q++) {
    const lat = 43.7 + rnd() * 0.1, lon = 7.4 + rnd() * 0.1, acc = rnd() * 100;
    const n = index.query(lat, lon, acc, 0);
    const got = Array.from({ length: n }, (_, i) => `${index.idOf(index.hitSlots[i])}:${index.hitClass[i]}`).sort();
    const want: string[] = [];
    for (const [id, s] of truth) {
      const dist = s.kind === 'circle' ? circleSignedDistance(lat, lon, s.lat, s.lon, s.radius) : polygonSignedDistance(lat, lon, s.coords, 0, s.coords.length / 2);
      const c = classify(dist, acc);
      if (c !== OUTSIDE) want.push(`${id}:${c}`);
    }
    assert.deepEqual(got, want.sort());
  }
});
