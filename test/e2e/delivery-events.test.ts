/**
 * Contract §3 "Which events": an app's `delivery.events` names the kinds delivered by postback or
 * bucket. A postback app that asks for `geofence` only gets its geofence triggers at a real
 * receiver and no visit or transit ones, while an app with the default gets all of them from the
 * same request; `[]` and an unknown name are 400; the admin API shows what was set.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDwell, type Running } from '../helpers/server.js';
import { admin, createApp, signed, type TestApp } from '../helpers/client.js';
import { holdingReceiver } from '../helpers/dwell-cli.js';
import { CASINO, visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

let dwell: Running;
let sink: Awaited<ReturnType<typeof holdingReceiver>>;
before(async () => {
  [dwell, sink] = await Promise.all([startDwell(), holdingReceiver()]);
  sink.open();
});
after(async () => {
  sink?.close();
  await dwell?.stop();
});

/** A 100 m fence around the casino, where visitRequest's visit is. */
async function fence(app: TestApp): Promise<string> {
  const r = await signed(dwell.url, app, `/v2/apps/${app.app_key}/geofences/create`, { tag: 'casino', ttl: 0, location: { ...CASINO, radius: 100 } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as string;
}

const kindOf = (body: any): string => (body.data.geofence_event ? 'geofence' : body.data.visit?.type ?? Object.keys(body.data).join('+'));
const arrivedFor = (app: TestApp) => sink.arrivals.filter((a) => a.body?.data?.user_info?.app_key === app.app_key);

test('a postback app with events ["geofence"] receives its geofence triggers and no visit ones', async () => {
  const only = await createApp(dwell.url, { method: 'postback', url: sink.url, events: ['geofence'] });
  const all = await createApp(dwell.url, { method: 'postback', url: sink.url });
  const [onlyFence, allFence] = [await fence(only), await fence(all)];
  for (const app of [only, all]) {
    const r = await signed(dwell.url, app, '/v1/detect', visitRequest());
    assert.equal(r.status, 202, JSON.stringify(r.body));
  }
  // The default app's triggers (visit, transit, entry, exit) show the request raises more than fences.
  await until('the default app\'s triggers', () => arrivedFor(all).some((a) => a.body.data.geofence_event) && arrivedFor(all).some((a) => !a.body.data.geofence_event));
  await until('the geofence-only app\'s trigger', () => arrivedFor(only).length > 0);
  const fenceEvents = (app: TestApp) => arrivedFor(app).filter((a) => a.body.data.geofence_event).map((a) => a.body.data.geofence_event);
  // The walk enters the fence and leaves it on its transit.
  await until('both apps\' entry and exit', () => fenceEvents(only).length >= 2 && fenceEvents(all).length >= 2);
  assert.deepEqual(fenceEvents(all).map((e) => [e.geofence_id, e.type]).sort(), [[allFence, 'entry'], [allFence, 'exit']]);
  // The geofence-only app's request was answered (and its triggers queued) before the default
  // app's, whose visit has arrived: a visit of the first would have been queued as well.
  assert.deepEqual(arrivedFor(only).map((a) => kindOf(a.body)), ['geofence', 'geofence']);
  assert.deepEqual(fenceEvents(only).map((e) => [e.geofence_id, e.type]).sort(), [[onlyFence, 'entry'], [onlyFence, 'exit']]);
});

test('events: [] and an unknown name are 400 at /delivery/events; GET shows the list', async () => {
  for (const [events, path] of [[[], '/delivery/events'], [['visit', 'dwell'], '/delivery/events/1'], ['geofence', '/delivery/events'], [['visit', 'visit'], '/delivery/events']] as const) {
    const r = await admin(dwell.url, '/admin/apps', { body: { name: 'x', delivery: { method: 'postback', url: sink.url, events } } });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path, path, JSON.stringify(r.body));
  }
  const app = await createApp(dwell.url, { method: 'postback', url: sink.url, events: ['geofence', 'place'] });
  const shown = await admin(dwell.url, `/admin/apps/${app.app_key}`);
  assert.equal(shown.status, 200, JSON.stringify(shown.body));
  assert.deepEqual(shown.body.delivery.events, ['geofence', 'place']);
  const plain = await createApp(dwell.url, { method: 'postback', url: sink.url });
  const shownPlain = await admin(dwell.url, `/admin/apps/${plain.app_key}`);
  assert.ok(shownPlain.body.delivery.events === undefined || shownPlain.body.delivery.events.length === 5, 'the default: every kind');
});
