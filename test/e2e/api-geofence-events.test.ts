/**
 * Geofence entry and exit raised from detection requests, end to end: a fence created through
 * the API, then a user's fixes walking in and out, answered synchronously or queued as triggers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';

const dwell = dwellWithApp();

const at = (minute: number, lat: number, long: number, accuracy = 10) => ({
  timestamp: stampAfter('2024-06-01T10:00:00+02:00', minute),
  location: { lat, long, accuracy, speed: 1 },
});

/** Outside, then well inside a 100 m fence around the casino, then 600 m away. */
const walk = [at(0, CASINO.lat + 0.006, CASINO.long), at(2, CASINO.lat, CASINO.long), at(4, CASINO.lat + 0.0001, CASINO.long), at(6, CASINO.lat - 0.0055, CASINO.long)];

async function fence(app: TestApp, tag: string) {
  const r = await signed(dwell.url, app, `/v2/apps/${app.app_key}/geofences/create`, { tag, push_text: 'Welcome!', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
}

test('synchronous apps get entry then exit in geofence_events', async () => {
  const app = await createApp(dwell.url);
  const id = await fence(app, 'casino');
  const r = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'walker-1', data: walk });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const events = r.body.geofence_events;
  assert.deepEqual(events.map((e: any) => e.type), ['entry', 'exit']);
  assert.equal(events[0].geofence_id, id);
  assert.equal(events[0].tag, 'casino');
  assert.equal(events[0].push_text, 'Welcome!');
  assert.equal(events[0].timestamp, walk[1].timestamp);
  assert.equal(events[1].timestamp, walk[3].timestamp);
  assert.equal(events[0].location.lat, CASINO.lat);

  // The same user again, still outside: nothing new.
  const again = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'walker-1', data: [at(8, CASINO.lat - 0.0056, CASINO.long)] });
  assert.deepEqual(again.body.geofence_events, []);
});

test('another app\'s fences raise nothing', async () => {
  const owner = await createApp(dwell.url);
  await fence(owner, 'private');
  const other = await createApp(dwell.url);
  const r = await signed(dwell.url, other, '/v1/detect', { advertising_id: 'walker-2', data: walk });
  assert.deepEqual(r.body.geofence_events, []);
});

test('postback apps get one geofence trigger per event, queued before the 202', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: 'http://127.0.0.1:9/unreachable' });
  const id = await fence(app, 'casino');
  const r = await signed(dwell.url, app, '/v1/detect', { request_id: 'gf-req', advertising_id: 'walker-3', user_id: 'u3', data: walk });
  assert.equal(r.status, 202);
  const res = await fetch(`${dwell.url}/admin/apps/${app.app_key}/deliveries?status=pending`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = (await res.json()) as any;
  const fenceTriggers = body.deliveries.map((d: any) => d.trigger).filter((t: any) => t.data.geofence_event);
  assert.deepEqual(fenceTriggers.map((t: any) => t.data.geofence_event.type).sort(), ['entry', 'exit']);
  for (const t of fenceTriggers) {
    assert.equal(t.result, 'SUCCESS');
    assert.equal(t.data.request_id, 'gf-req');
    assert.equal(t.data.geofence_event.geofence_id, id);
    assert.equal(t.data.visit, undefined);
    assert.deepEqual(t.data.user_info, { user_id: 'u3', device_id: 'walker-3', app_key: app.app_key, custom_data: null });
  }
});
