/**
 * Streams (contract §2): "a visit is reported once it has lasted the confirmation dwell or has
 * ended". A stop of a few minutes that ends before the dwell is reported once, unconfirmed, with
 * its end time; a red-light pause on the way is no stay and is not reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { sdkStamp } from '../helpers/stamps.js';
import { M_PER_DEG, mPerDegLon } from '../../src/geo/distance.js';

const dwell = dwellWithApp();

const T0 = Date.parse('2024-05-06T10:00:00+02:00'); // arrival at the stop
/** A fix `north`/`east` metres from the Casino square. */
const fix = (ms: number, north: number, east: number, speed: number) => ({
  timestamp: sdkStamp(ms, '+02:00'),
  location: { lat: CASINO.lat + north / M_PER_DEG, long: CASINO.long + east / mPerDegLon(CASINO.lat), accuracy: 12, speed },
});
const min = (m: number) => T0 + m * 60_000;

/** Walking in from the south for 6 minutes, a stop of 3 minutes, walking away east with a 1-minute red light. */
function signals() {
  const out = [];
  for (let m = -6; m < 0; m++) out.push(fix(min(m), m * 84, 0, 1.4));
  for (let m = 0; m <= 3; m++) out.push(fix(min(m), (m % 2) * 3, (m % 3) * 2, 0.05));
  let east = 0, m = 4;
  for (let k = 0; k < 5; k++, m++) { east += 84; out.push(fix(min(m), 0, east, 1.4)); }
  out.push(fix(min(m++), 0, east, 0)); out.push(fix(min(m++), 2, east, 0)); // the red light
  for (let k = 0; k < 5; k++, m++) { east += 84; out.push(fix(min(m), 0, east, 1.4)); }
  return out;
}

test('a 3-minute stop that then moves away is reported once, unconfirmed, with its end time', async () => {
  const user = { advertising_id: 'short-stop' };
  const r = await signed(dwell.url, dwell.app, '/v1/detect', { ...user, data: signals() });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.data.length, 1, `one stay, the red light is none: ${JSON.stringify(r.body.data.map((d: any) => [d.visit.start_time, d.visit.end_time]))}`);
  const v = r.body.data[0].visit;
  assert.equal(v.event_type, 'visit');
  assert.equal(v.is_confirmed, false, 'shorter than the 5-minute dwell');
  assert.ok(v.end_time, 'the stop has ended');
  assert.ok(Math.abs(Date.parse(v.start_time) - T0) <= 60_000, `start ${v.start_time}`);
  assert.ok(Math.abs(Date.parse(v.end_time) - min(3.5)) <= 60_000, `end ${v.end_time}`);
  assert.ok(v.place && v.place.estimated_geolocation, 'located at the stop');

  // More walking in a later upload: the ended stop is not reported again.
  const later = [];
  for (let k = 1; k <= 4; k++) later.push(fix(min(30 + k), -500, 1500 + k * 84, 1.4));
  const again = await signed(dwell.url, dwell.app, '/v1/detect', { ...user, data: later });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body.data, []);
});
