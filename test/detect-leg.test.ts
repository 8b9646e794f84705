/**
 * Legs of travel (src/detect/leg.ts): the track of a transit, run back to the moment it began,
 * points at the place the person left, and a visit next to that transit in the same request is
 * placed by it as well as by its own fixes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { detectStructured } from '../src/detect/index.js';
import { MemoryVenueStore, venueFromRow } from './helpers/memory-venues.js';
import { fixesOf } from '../src/detect/fixes.js';
import { legEnd } from '../src/detect/leg.js';
import { DEFAULT_PARAMS, withParams } from '../src/detect/params.js';
import { M_PER_DEG, mPerDegLon, metres } from '../src/geo/distance.js';
import type { Signal, StructuredRequest } from '../src/schemas/detect-request.js';
import { context } from './detect-helpers.js';
import { sdkStamp } from './helpers/stamps.js';

const A = { lat: 40.7536, lon: -73.9832 };
const M = M_PER_DEG, M_LON = mPerDegLon(A.lat);
const at = (northM: number, eastM: number) => ({ lat: A.lat + northM / M, lon: A.lon + eastM / M_LON });
const T0 = Date.parse('2024-05-08T15:00:00Z');

/** Walking east from A at 1.3 m/s from `startMs`, a fix every 40 s for 6 minutes; `jumpAt` adds a 200 m multipath jump. */
function walk(startMs: number, jumpAt = -1): Signal[] {
  const out: Signal[] = [];
  for (let k = 1; k <= 9; k++) {
    const s = 40 * k, p = at(k === jumpAt ? 200 : ((k * 37) % 5) - 2, 1.3 * s);
    out.push({ timestamp: sdkStamp(startMs + s * 1000), location: { lat: p.lat, long: p.lon, accuracy: 10, speed: 1.3 } });
  }
  return out;
}

test('a track run back to its start points at the place left, despite a multipath jump', () => {
  const start = walk(T0, 4);
  const end = legEnd(fixesOf(start), T0, 'after', DEFAULT_PARAMS.leg);
  assert.ok(end, 'nine fixes over six minutes make a track');
  const miss = metres(end.lat, end.lon, A.lat, A.lon);
  assert.ok(miss < 4, `the track's start should be within 4 m of the door, was ${miss.toFixed(1)} m`);
  assert.ok(end.sigma >= DEFAULT_PARAMS.leg.minSigma && end.sigma < 15, `an honest error: ${end.sigma}`);

  // The same walk seen as the end of a leg: run forward to the moment it ended.
  const last = Date.parse(start[start.length - 1].timestamp);
  const arrival = legEnd(fixesOf(start), last, 'before', DEFAULT_PARAMS.leg);
  const lastAt = start[start.length - 1].location!;
  assert.ok(arrival && metres(arrival.lat, arrival.lon, lastAt.lat, lastAt.long) < 6, 'the end of a leg is where it stopped');

  assert.equal(legEnd(fixesOf(start.slice(0, 2)), T0, 'after', DEFAULT_PARAMS.leg), null, 'two fixes are no track');
});

test('a visit followed by a transit is placed at the door the transit left by', () => {
  // Two cafés 40 m apart on a north-south line; the stay's indoor fixes sit between them, a
  // little nearer the wrong one (B), and the transit leaves from A.
  const venues = new MemoryVenueStore([
    { id: 'A', category: 'Coffee Shop', ...A, checkins: 3 },
    { id: 'B', category: 'Coffee Shop', ...at(40, 0), checkins: 3 },
  ].map(venueFromRow));
  const stay: Signal[] = [];
  for (let m = 0; m < 30; m += 3) {
    const p = at(24 + ((m * 7) % 5) - 2, ((m * 11) % 7) - 3);
    stay.push({ timestamp: sdkStamp(T0 + m * 60_000), location: { lat: p.lat, long: p.lon, accuracy: 35, speed: 0 } });
  }
  const leave = T0 + 30 * 60_000;
  const body: StructuredRequest = { advertising_id: 'leg-user', events: [
    { event_id: 'v', type: 'visit', start_time: sdkStamp(T0), end_time: sdkStamp(leave), data: stay },
    { event_id: 't', type: 'transit', start_time: sdkStamp(leave), end_time: sdkStamp(leave + 6 * 60_000), data: walk(leave) },
  ] };
  const rank = (on: number) => {
    const ctx = { ...context('monaco-venues-cut.jsonl'), venues, params: withParams(DEFAULT_PARAMS, { leg: { on } }) };
    try {
      const place = detectStructured(body, ctx)[0].visit.place!;
      return Object.fromEntries(place.venues!.map((v) => [v.id, v.probability]));
    } finally {
      ctx.users.close();
      fs.rmSync(ctx.dataDir, { recursive: true, force: true });
    }
  };
  const without = rank(0), withLeg = rank(1);
  assert.ok(without.B > without.A, `by its own fixes the stay looks like B: ${JSON.stringify(without)}`);
  assert.ok(withLeg.A > withLeg.B, `with the leg it is A: ${JSON.stringify(withLeg)}`);
});
