/**
 * A detection with no user (no advertising id, no user id) remembers nothing between requests
 * (docs/api-choices.md "Geofences"): its geofence events are the crossings within its own fixes. A device that
 * stays inside a fence raises no entry request after request; one that walks in during a request
 * raises one; a known user's presence is kept as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';

const dwell = dwellWithApp({}, { setUp: async (dwell) => {
  const r = await signed(dwell.url, dwell.app, `/v2/apps/${dwell.app.app_key}/geofences/create`, { tag: 'casino', location: { ...CASINO, radius: 100 }, ttl: 0 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
} });

/** An unstructured request of fixes `metres` north of the fence's centre, a minute apart. */
function stream(hour: number, metres: number[], who: Record<string, string> = {}) {
  return {
    ...who,
    data: metres.map((m, i) => ({
      timestamp: stampAfter(`2024-05-06T${String(hour).padStart(2, '0')}:00:00+02:00`, i),
      location: { lat: CASINO.lat + m / 111_195, long: CASINO.long, accuracy: 10 },
    })),
  };
}

const events = async (body: unknown) => {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.geofence_events as Array<{ type: string; timestamp: string }>).map((e) => e.type);
};

test('no user: staying inside raises nothing, request after request', async () => {
  assert.deepEqual(await events(stream(8, [0, 5, 10])), []);
  assert.deepEqual(await events(stream(9, [0, 5, 10])), [], 'the next request: still no entry');
});

test('no user: the crossings within one request are raised', async () => {
  assert.deepEqual(await events(stream(10, [500, 400, 0, 5])), ['entry']);
  assert.deepEqual(await events(stream(11, [0, 5, 600])), ['exit']);
  assert.deepEqual(await events(stream(12, [600, 0, 600])), ['entry', 'exit']);
});

test('a known user keeps presence between requests: entry once, then nothing while inside', async () => {
  const who = { advertising_id: 'ad-anon-test' };
  assert.deepEqual(await events(stream(8, [0, 5], who)), ['entry'], 'a new user inside: entry');
  assert.deepEqual(await events(stream(9, [0, 5], who)), []);
});
