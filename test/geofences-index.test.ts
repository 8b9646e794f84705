/**
 * The point index at scale against brute force: a bulk-loaded grid with thousands of cells (the
 * hash table regrows), fences large enough for the coarser grid and the Flatbush behind it,
 * fences across the antimeridian, accuracy circles over cell edges, expiry and tombstones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { circle, preparePolygon, type Shape } from '../src/geofences/geometry.js';
import { M_PER_DEG } from '../src/geo/distance.js';
import { classify, distanceM, lonNear, OUTSIDE, polygonSignedDistance, circleSignedDistance } from '../src/geofences/match.js';
import { cosMean, FenceIndex } from '../src/geofences/index.js';

let seed = 11;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const CENTRES: Array<[number, number]> = [[48.85, 2.35], [-17.7, 179.99], [64.1, -21.9], [0.01, -0.01]];

function around(): [number, number] {
  const [lat, lon] = CENTRES[Math.floor(rnd() * CENTRES.length)];
  const x = lon + (rnd() - 0.5) * 0.4;
  return [lat + (rnd() - 0.5) * 0.3, x > 180 ? x - 360 : x];
}

function shape(): Shape {
  const [lat, lon] = around();
  const u = rnd();
  if (u < 0.75) return circle(lat, lon, u < 0.01 ? 5_000 + rnd() * 40_000 : 5 + rnd() * 600);
  const n = 3 + Math.floor(rnd() * 6), size = u > 0.99 ? 20_000 : 30 + rnd() * 400;
  const k = M_PER_DEG * Math.cos((lat * Math.PI) / 180);
  return preparePolygon(Array.from({ length: n }, (_, i) => {
    const a = ((i + rnd() * 0.8) * 2 * Math.PI) / n, m = size * (0.5 + rnd() / 2);
    return { lat: lat + (m * Math.sin(a)) / M_PER_DEG, long: ((lon + (m * Math.cos(a)) / k + 540) % 360) - 180 };
  }), '/p');
}

function truth(shapes: Map<string, { s: Shape; exp: number }>, lat: number, lon: number, acc: number, now: number): string[] {
  const out: string[] = [];
  for (const [id, { s, exp }] of shapes) {
    if (exp <= now) continue;
    const d = s.kind === 'circle'
      ? circleSignedDistance(lat, lon, s.lat, s.lon, s.radius)
      : polygonSignedDistance(lat, lonNear(lon, (s.bbox[0] + s.bbox[2]) / 2), s.coords, 0, s.coords.length / 2);
    const c = classify(d, acc);
    if (c !== OUTSIDE) out.push(`${id}:${c}`);
  }
  return out.sort();
}

test('a bulk-loaded index of thousands of cells finds exactly what brute force finds', () => {
  const index = new FenceIndex();
  const shapes = new Map<string, { s: Shape; exp: number }>();
  for (let i = 0; i < 30_000; i++) {
    const s = shape(), exp = rnd() < 0.1 ? 1000 : Infinity;
    shapes.set(`f${i}`, { s, exp });
    index.add(`f${i}`, s, exp);
  }
  index.rebuild();
  for (let i = 0; i < 3000; i++) { shapes.delete(`f${i}`); index.remove(`f${i}`); }
  for (let i = 0; i < 2000; i++) { const s = shape(); shapes.set(`g${i}`, { s, exp: Infinity }); index.upsert(`g${i}`, s, Infinity); }
  assert.equal(index.size, shapes.size);
  for (let q = 0; q < 400; q++) {
    const [lat, lon] = around();
    const acc = q % 3 === 0 ? 0 : rnd() * (q % 7 === 0 ? 3_000 : 150);
    const now = q % 2 ? 0 : 5000;
    const n = index.query(lat, lon, acc, now);
    const got = Array.from({ length: n }, (_, i) => `${index.idOf(index.hitSlots[i])}:${index.hitClass[i]}`).sort();
    assert.deepEqual(got, truth(shapes, lat, lon, acc, now), `query ${q} at ${lat}, ${lon} ± ${acc} m`);
  }
});

test('the cosine of the mean latitude from per-query trigonometry matches the direct one', () => {
  for (let i = 0; i < 10_000; i++) {
    const lat = (rnd() - 0.5) * 179, dLat = (rnd() - 0.5) * (i % 10 === 0 ? 4 : 0.05);
    const r = Math.PI / 180;
    const got = cosMean(Math.cos(lat * r), Math.sin(lat * r), lat, dLat);
    assert.ok(Math.abs(got - Math.cos((lat + lat + dLat) * 0.5 * r)) < 1e-15, `lat ${lat} dLat ${dLat}`);
  }
  assert.ok(distanceM(10, 10, 10, 10.001) > 0);
});
