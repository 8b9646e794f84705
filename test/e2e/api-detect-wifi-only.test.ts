/**
 * A visit event without a single location fix (contract §2: `place: null` is for transit only).
 * The app's learned access points locate it when it heard one; when nothing locates it, the
 * place is there but unknown: `place_id` null, `estimated_geolocation` null, every address key "".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';
import { haversineM } from '../../src/geo/distance.js';

const KNOWN = { ssid: 'Casino-Guest', bssid: 'a4:2b:b0:11:22:33' };
const UNKNOWN = { ssid: 'nobody-knows', bssid: 'de:ad:be:ef:00:01' };

const dwell = dwellWithApp();

function metres(a: { lat: number; long: number }, b: { lat: number; long: number }) {
  return haversineM(a.lat, a.long, b.lat, b.long);
}

/** Signals with Wi-Fi only: the joined network and a scan hearing it, every 5 minutes. */
function wifiOnly(net: { ssid: string; bssid: string }, hour: string) {
  return [0, 5, 10, 15, 20].map((m) => ({
    timestamp: stampAfter(`${hour}:00:00+02:00`, m + 2),
    active_wifi: { ...net, strength: -48 },
    wifi_scan: [{ ...net, strength: -48, age: 0 }],
  }));
}

const event = (id: string, hour: string, data: unknown[]) =>
  ({ event_id: id, type: 'visit', start_time: `${hour}:00:00+02:00`, end_time: `${hour}:25:00+02:00`, data });

test('a visit heard only through a network the app has located is placed where that network is', async () => {
  // Teach: a confirmed visit with fixes that joined the network.
  const taught = fixes(CASINO, '2024-05-06T09', [2, 7, 12, 17, 22]).map((s, i) => (i % 2 ? s : { ...s, active_wifi: { ...KNOWN, strength: -45 }, wifi_scan: [{ ...KNOWN, strength: -45, age: 0 }] }));
  const first = await signed(dwell.url, dwell.app, '/v1/detect', { advertising_id: 'teacher', events: [event('teach', '2024-05-06T09', taught)] });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const t = first.body.data[0].visit;
  assert.equal(t.is_confirmed, true);
  const taughtAt = t.place.estimated_geolocation;

  const r = await signed(dwell.url, dwell.app, '/v1/detect', { advertising_id: 'other-user', events: [event('wifi', '2024-05-07T14', wifiOnly(KNOWN, '2024-05-07T14'))] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const v = r.body.data[0].visit;
  assert.equal(v.event_type, 'visit');
  assert.ok(v.place, `a located visit has a place: ${JSON.stringify(v)}`);
  const g = v.place.estimated_geolocation;
  assert.ok(g && typeof g.lat === 'number' && typeof g.long === 'number' && g.accuracy > 0, JSON.stringify(g));
  assert.ok(metres(g, taughtAt) < 30, `placed ${metres(g, taughtAt).toFixed(1)} m from the taught visit`);
  assert.equal(v.place.estimated_address.country, 'Monaco');
  assert.equal(typeof v.place_id, 'string', 'venues near the Casino are ranked as usual');
  assert.equal(v.place.id, v.place_id);
  assert.ok(v.place.venues.length > 0);
});

test('a visit heard only through networks nobody has located: place unknown, not transit', async () => {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', { advertising_id: 'lost', events: [event('lost', '2024-05-07T16', wifiOnly(UNKNOWN, '2024-05-07T16'))] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const v = r.body.data[0].visit;
  assert.equal(v.event_type, 'visit');
  assert.equal(v.is_confirmed, false);
  assert.equal(v.place_id, null);
  assert.deepEqual(v.place, {
    estimated_address: { city: '', country: '', state: '', formatted_city: '', postal_code: '', formatted_address: '', street_address: '' },
    estimated_geolocation: null,
  });
  assert.equal(v.start_time, '2024-05-07T16:00:00+02:00');
  assert.equal(v.end_time, '2024-05-07T16:25:00+02:00');
});
