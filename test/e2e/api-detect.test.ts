/**
 * A signed structured request and an unstructured one against the real server and the bundled
 * Monaco venues, answers checked field by field against interface 2.7/2.8 and contract §2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO, fixes, visitRequest } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';
import { haversineM } from '../../src/geo/distance.js';

const dwell = dwellWithApp();

const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function metres(a: { lat: number; long: number }, b: { lat: number; long: number }) {
  return haversineM(a.lat, a.long, b.lat, b.long);
}

function checkVenue(v: any) {
  for (const f of ['id', 'name', 'category', 'sub_category']) assert.equal(typeof v[f], 'string', `venue.${f}`);
  assert.ok(v.probability >= 0 && v.probability <= 1, `probability ${v.probability}`);
}

test('structured: one answer per event, in order, with a complete visit and a transit', async () => {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', visitRequest());
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.equal(r.body.result, 'SUCCESS');
  assert.equal(r.body.data.length, 2);
  const [visit, transit] = r.body.data;

  assert.equal(visit.event_id, 'ev-1');
  const v = visit.visit;
  assert.equal(typeof v.id, 'string');
  assert.equal(v.event_type, 'visit');
  assert.equal(v.is_confirmed, true, 'a 25-minute stay is confirmed');
  assert.match(v.start_time, ISO_OFFSET);
  assert.ok(Date.parse(v.start_time) >= Date.parse('2024-05-06T07:25:00+02:00'));
  assert.ok(Date.parse(v.start_time) <= Date.parse('2024-05-06T07:27:00+02:00'));
  assert.match(v.end_time, ISO_OFFSET);
  assert.match(v.end_time, /\+02:00$/, 'end_time keeps the signals\' offset');

  const p = v.place;
  assert.equal(typeof v.place_id, 'string');
  assert.equal(p.id, v.place_id);
  assert.equal(typeof p.type, 'string');
  assert.ok(Number.isInteger(p.type_id));
  assert.ok(p.venues.length >= 1);
  p.venues.forEach(checkVenue);
  assert.deepEqual(p.venue_info, p.venues[0]);
  assert.equal(p.venues[0].id, p.id);
  for (let i = 1; i < p.venues.length; i++) assert.ok(p.venues[i - 1].probability >= p.venues[i].probability, 'descending');
  const sum = p.venues.reduce((s: number, x: any) => s + x.probability, 0);
  assert.ok(sum <= 1 + 1e-9, `probabilities sum to ${sum}`);
  assert.equal(typeof p.estimated_address, 'object');
  assert.equal(p.estimated_address.country, 'Monaco');
  const g = p.estimated_geolocation;
  assert.ok(metres(g, CASINO) < 50, `estimated at ${JSON.stringify(g)}`);
  assert.ok(g.accuracy > 0 && g.accuracy < 200);
  assert.match(p.first_visit_time, ISO_UTC);
  assert.match(p.last_visit_time, ISO_UTC);

  assert.equal(transit.event_id, 'ev-2');
  assert.equal(transit.visit.event_type, 'transit');
  assert.equal(transit.visit.is_confirmed, false);
  assert.equal(transit.visit.place_id, null);
  assert.equal(transit.visit.place, null);
});

test('structured: a short event is answered but not confirmed', async () => {
  const req = visitRequest();
  req.events = [{ ...req.events[0], end_time: '2024-05-06T07:29:00+02:00', data: fixes(CASINO, '2024-05-06T07', [26, 28]) }];
  const r = await signed(dwell.url, dwell.app, '/v1/detect', req);
  assert.equal(r.status, 200);
  assert.equal(r.body.data[0].visit.is_confirmed, false);
});

test('structured: open sea, far from any venue, gives a place with only geolocation and address', async () => {
  const sea = { lat: 43.70, long: 7.47 };
  const req = visitRequest();
  req.events = [{ ...req.events[0], data: fixes(sea, '2024-05-06T07', [27, 31, 35, 40, 45]) }];
  const r = await signed(dwell.url, dwell.app, '/v1/detect', req);
  assert.equal(r.status, 200);
  const v = r.body.data[0].visit;
  assert.equal(v.place_id, null);
  assert.deepEqual(Object.keys(v.place).sort(), ['estimated_address', 'estimated_geolocation']);
});

test('unstructured: a stay is reported once confirmed, then again with end_time and the same id', async () => {
  const user = { advertising_id: 'stream-user-1' };
  const first = await signed(dwell.url, dwell.app, '/v1/detect', { ...user, data: fixes(CASINO, '2024-05-07T10', [0, 3, 6, 9, 12]) });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.result, 'SUCCESS');
  assert.equal(first.body.data.length, 1, JSON.stringify(first.body));
  const ongoing = first.body.data[0].visit;
  assert.equal(ongoing.is_confirmed, true);
  assert.equal(ongoing.end_time, undefined, 'still ongoing');
  assert.equal(first.body.data[0].event_id, undefined);

  // More of the same stay, then walking away for good.
  const away = [0, 1, 2, 3, 4, 5, 6].map((m) => ({
    timestamp: stampAfter('2024-05-07T10:00:00+02:00', 20 + m),
    location: { lat: CASINO.lat - 0.0015 * (m + 1), long: CASINO.long - 0.0015 * (m + 1), accuracy: 10, speed: 1.4 },
  }));
  const second = await signed(dwell.url, dwell.app, '/v1/detect', { ...user, data: [...fixes(CASINO, '2024-05-07T10', [15, 18]), ...away] });
  assert.equal(second.status, 200);
  const ended = second.body.data.find((d: any) => d.visit.id === ongoing.id);
  assert.ok(ended, `the same visit is reported again: ${JSON.stringify(second.body)}`);
  assert.match(ended.visit.end_time, ISO_OFFSET);
  assert.ok(Date.parse(ended.visit.end_time) >= Date.parse('2024-05-07T10:18:00+02:00'));
  assert.equal(ended.visit.start_time, ongoing.start_time);
});

test('unstructured: a request with neither advertising_id nor user_id is accepted', async () => {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', { data: fixes(CASINO, '2024-05-08T10', [0, 3]) });
  assert.equal(r.status, 200);
  assert.equal(r.body.result, 'SUCCESS');
  assert.ok(Array.isArray(r.body.data));
});
