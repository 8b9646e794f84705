/**
 * The indoor look (src/detect/evidence/indoor.ts): fixes that claim tens of metres were taken
 * under a roof, fixes that claim a few metres under the sky, and the ranking leans towards venues
 * of the matching kind. The same stay is ranked with the factor on and off, so the test sees the
 * factor's own push and nothing of the other factors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { detectStructured } from '../src/detect/index.js';
import { MemoryVenueStore, venueFromRow } from './helpers/memory-venues.js';
import { DEFAULT_PARAMS, withParams } from '../src/detect/params.js';
import { indoorShare } from '../src/detect/evidence/indoor.js';
import type { Signal, StructuredRequest } from '../src/schemas/detect-request.js';
import { M_PER_DEG, mPerDegLon } from '../src/geo/distance.js';
import { context } from './detect-helpers.js';
import { sdkStamp } from './helpers/stamps.js';

const AT = { lat: 40.7536, lon: -73.9832 };
const M = M_PER_DEG, M_LON = mPerDegLon(AT.lat);
// A park 12 m north of the stay and a clothing store 12 m south: equally near, equally popular.
const venues = new MemoryVenueStore([
  { id: 'park', category: 'Park', lat: AT.lat + 12 / M, lon: AT.lon, checkins: 5 },
  { id: 'shop', category: 'Clothing Store', lat: AT.lat - 12 / M, lon: AT.lon, checkins: 5 },
].map(venueFromRow));

/** 20 minutes of fixes at the stay's centre (small deterministic jitter), all claiming `accuracy`. */
function request(user: string, accuracy: number): StructuredRequest {
  const t0 = Date.parse('2024-05-08T15:00:00Z');
  const data: Signal[] = [];
  for (let m = 0; m < 20; m += 2) {
    const j = ((m * 7919) % 7) - 3;
    data.push({ timestamp: sdkStamp(t0 + m * 60_000),
      location: { lat: AT.lat + j / M, long: AT.lon + j / M_LON, accuracy, speed: 0 } });
  }
  return { advertising_id: user, events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp,
    end_time: sdkStamp(t0 + 20 * 60_000), data }] };
}

/** Probability of each venue for one stay, in a fresh store, with the indoor factor at `weight`. */
function rankedWith(weight: number, accuracy: number): Record<string, number> {
  const ctx = { ...context('monaco-venues-cut.jsonl'), venues, params: withParams(DEFAULT_PARAMS, { weights: { indoor: weight } }) };
  try {
    const [item] = detectStructured(request(`ad-${weight}-${accuracy}`, accuracy), ctx);
    return Object.fromEntries((item.visit.place?.venues ?? []).map((v) => [v.id, v.probability]));
  } finally {
    ctx.users.close();
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
  }
}

test('the indoor look follows the fixes\' reported accuracy', () => {
  assert.ok(indoorShare(6 / 1.5) < 0.05, `fixes claiming 6 m look outdoors, got ${indoorShare(6 / 1.5)}`);
  assert.ok(indoorShare(45 / 1.5) > 0.95, `fixes claiming 45 m look indoors, got ${indoorShare(45 / 1.5)}`);
  assert.ok(Math.abs(indoorShare(15) - 0.5) < 1e-9, 'the split sits at a per-fix sigma of 15 m');
  assert.ok(Number.isNaN(indoorShare(0)), 'no accuracy, no look');
});

test('fixes that look indoors favour the store, fixes that look outdoors the park', () => {
  const indoorOn = rankedWith(1, 45), indoorOff = rankedWith(0, 45);
  assert.ok(indoorOn.shop > indoorOff.shop, `indoor look: shop ${indoorOn.shop} with the factor, ${indoorOff.shop} without`);
  assert.ok(indoorOn.park < indoorOff.park, `indoor look: park ${indoorOn.park} with the factor, ${indoorOff.park} without`);

  const outdoorOn = rankedWith(1, 6), outdoorOff = rankedWith(0, 6);
  assert.ok(outdoorOn.park > outdoorOff.park, `outdoor look: park ${outdoorOn.park} with the factor, ${outdoorOff.park} without`);
  assert.ok(outdoorOn.shop < outdoorOff.shop, `outdoor look: shop ${outdoorOn.shop} with the factor, ${outdoorOff.shop} without`);
});
