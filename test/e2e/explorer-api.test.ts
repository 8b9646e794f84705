/**
 * The explorer's admin API (issue 19) over HTTP against the real server: recent detections are
 * kept per app (request and answer), bounded by count, skipped for opted-out apps, erased with
 * the user and the app (contract §7) and exported with the user; an explanation answers the
 * visits /v1/detect answers, with factors that add up to each candidate's score, and what each
 * integrity flag rests on; the app's place triggers are listed; all of it only with the admin token.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes, visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

let dwell: Running;
let optedOut: TestApp;
const admin = (path: string, init: RequestInit = {}, token = ADMIN_TOKEN) =>
  fetch(dwell.url + path, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...(init.headers ?? {}) } })
    .then(async (r) => ({ status: r.status, body: await r.json() as any }));

const visit = (ad: string, day: string) => ({
  advertising_id: ad, request_id: `r-${ad}-${day}`,
  events: [{ event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`, data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]) }],
});

before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-explorer-'));
  // The opted-out app's key is known only once it exists: create it on a first run of the server.
  const first = await startDwell({ DWELL_DATA_DIR: dir });
  optedOut = await createApp(first.url);
  await first.stop();
  dwell = await startDwell({ DWELL_DATA_DIR: dir, DWELL_RECENT_COUNT: '3', DWELL_RECENT_OPT_OUT: optedOut.app_key });
});
after(async () => { await dwell.stop(); fs.rmSync(dwell.dataDir, { recursive: true, force: true }); });

test('recent detections: newest first, request and answer as sent, at most the count', async () => {
  const app = await createApp(dwell.url);
  const answers: any[] = [];
  for (const day of ['06', '07', '08', '09']) {
    const r = await signed(dwell.url, app, '/v1/detect', visit('ad-1', day));
    assert.equal(r.status, 200);
    answers.push(r.body);
  }
  // Kept after the answer (the writes are queued): wait for the fourth, not just for three listed.
  const list = await until('the last detection kept, three listed', async () => {
    const l = await admin(`/admin/apps/${app.app_key}/recent`);
    if (l.body.count !== 3) return undefined;
    const first = await admin(`/admin/apps/${app.app_key}/recent/${l.body.detections[0].id}`);
    return isDeepStrictEqual(first.body.request, visit('ad-1', '09')) ? l : undefined;
  });
  assert.equal(list.body.kept, true);
  assert.deepEqual(list.body.detections.map((d: any) => d.user), ['ad-1', 'ad-1', 'ad-1']);
  const newest = await admin(`/admin/apps/${app.app_key}/recent/${list.body.detections[0].id}`);
  assert.equal(newest.status, 200);
  assert.deepEqual(newest.body.request, visit('ad-1', '09'), 'the request as sent (gzip undone)');
  assert.deepEqual(newest.body.answer, answers[3], 'the answer as sent');
  assert.equal((await admin(`/admin/apps/${app.app_key}/recent/zz-1`)).status, 404);
});

test('an opted-out app keeps none', async () => {
  assert.equal((await signed(dwell.url, optedOut, '/v1/detect', visit('ad-x', '06'))).status, 200);
  const list = await admin(`/admin/apps/${optedOut.app_key}/recent`);
  assert.equal(list.body.kept, false);
  assert.equal(list.body.count, 0);
});

test('explain: the visits of /v1/detect, and factors that add up to the scores; nothing stored', async () => {
  const app = await createApp(dwell.url);
  const body = visitRequest();
  const e = await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.equal(e.status, 200, JSON.stringify(e.body));
  const r = e.body.rankings[0];
  assert.ok(r.candidates.length > 1);
  for (const c of r.candidates) {
    const sum = c.factors.reduce((s: number, f: any) => s + f.value, 0);
    assert.ok(Math.abs(sum - c.score) < 1e-9, `${c.id}: ${sum} vs ${c.score}`);
  }
  assert.equal(e.body.rankings[1], null, 'the transit event has no ranking');
  const detected = await signed(dwell.url, app, '/v1/detect', body);
  assert.deepEqual(e.body.data, detected.body.data, 'explaining first changed nothing: detection answers the same');
  assert.equal((await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: '{}' })).status, 400);
});

test('explain says what each integrity flag rests on (contract §12); the place triggers are listed read-only', async () => {
  const app = await createApp(dwell.url);
  const body = visitRequest();
  body.events[0].data[4].location.mocked = true;
  // The transit's second fix 100 km north, 4 minutes after its first: 417 m/s.
  body.events[1].data[1].location.lat += 100_000 / 111_195;
  const e = await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(e.status, 200, JSON.stringify(e.body));
  assert.deepEqual(e.body.data.map((d: any) => d.visit.integrity.flags), [['mocked'], ['jumped']]);
  const jump = e.body.integrity.find((x: any) => x.flag === 'jumped');
  assert.deepEqual([jump.from.signal, jump.to.signal, jump.seconds], [5, 6, 240], 'the two positions: the transit\'s fixes, signals counted across events');
  assert.ok(Math.abs(jump.distance_m - 100_000) < 1_000 && jump.speed_m_s > 300 && jump.speed_m_s < 420, JSON.stringify(jump));
  assert.deepEqual(e.body.integrity.filter((x: any) => x.flag === 'mocked').map((x: any) => [x.signal, x.position.lat]), [[4, body.events[0].data[4].location.lat]]);
  body.events[0].data[4].location.mocked = false;
  body.events[1].data[1].location.lat = body.events[1].data[0].location.lat;
  assert.deepEqual((await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(body) })).body.integrity, [], 'nothing flagged, no evidence');

  assert.deepEqual((await admin(`/admin/apps/${app.app_key}/place-triggers`)).body, { place_triggers: [], next_cursor: null });
  const created = await signed(dwell.url, app, `/v2/apps/${app.app_key}/place-triggers/create`, { brand: 'Starbucks', radius: 50, tag: 'coffee' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const listed = await admin(`/admin/apps/${app.app_key}/place-triggers`);
  assert.deepEqual(listed.body.place_triggers.map((t: any) => [t.id, t.brand, t.radius, t.tag]), [[created.body, 'Starbucks', 50, 'coffee']]);
  assert.equal((await admin(`/admin/apps/${app.app_key}/place-triggers`, {}, 'wrong')).status, 401);
  assert.equal((await admin('/admin/apps/ak_nope/place-triggers')).status, 404);
});

test('erase and app deletion remove recent detections; export shows them', async () => {
  const app = await createApp(dwell.url);
  for (const ad of ['ad-keep', 'ad-gone']) assert.equal((await signed(dwell.url, app, '/v1/detect', visit(ad, '06'))).status, 200);
  await until('two recent detections', async () => ((await admin(`/admin/apps/${app.app_key}/recent`)).body.count === 2 ? true : undefined));
  const exported = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-gone`);
  assert.equal(exported.body.users[0].recent_detections.length, 1, JSON.stringify(exported.body));
  const erased = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'ad-gone' });
  assert.equal(erased.body.erased.recent_detections, 1);
  assert.deepEqual((await admin(`/admin/apps/${app.app_key}/recent`)).body.detections.map((d: any) => d.user), ['ad-keep']);
  const deleted = await admin(`/admin/apps/${app.app_key}`, { method: 'DELETE' });
  assert.equal(deleted.body.removed.recent_detections, 1);
});

test('the explorer\'s admin calls want the token; the page itself holds no data', async () => {
  const app = await createApp(dwell.url);
  for (const path of ['/admin/apps', `/admin/apps/${app.app_key}/recent`, `/admin/apps/${app.app_key}/geofences`, '/admin/venues?q=casino']) {
    assert.equal((await admin(path, {}, 'wrong')).status, 401, path);
  }
  assert.equal((await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: '{}' }, 'wrong')).status, 401);
  const apps = await admin('/admin/apps');
  assert.ok(apps.body.apps.some((a: any) => a.app_key === app.app_key) && apps.body.apps.every((a: any) => !('secrets' in a)));
  const venues = await admin(`/admin/venues?q=casino&lat=${CASINO.lat}&long=${CASINO.long}&radius=500`);
  assert.equal(venues.status, 200, JSON.stringify(venues.body));
  assert.ok(venues.body.venues.length > 0 && venues.body.venues.every((v: any) => /casino/i.test(`${v.name} ${v.category} ${v.sub_category}`)));
  const page = await fetch(dwell.url + '/ui');
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>Dwell explorer<\/title>/);
});

test('a queued (postback) detection is kept with the visits it queued', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: 'http://127.0.0.1:9/never' });
  const r = await signed(dwell.url, app, '/v1/detect', visit('ad-q', '06'));
  assert.equal(r.status, 202);
  const list = await until('one recent detection', async () => { const l = await admin(`/admin/apps/${app.app_key}/recent`); return l.body.count === 1 ? l : undefined; });
  assert.equal(list.body.detections[0].request_id, 'r-ad-q-06');
  const d = await admin(`/admin/apps/${app.app_key}/recent/${list.body.detections[0].id}`);
  assert.equal(d.body.answer.data.length, 1);
  assert.ok(d.body.answer.data[0].visit.place_id, 'the visit as queued for delivery');
});

test('explain reads the app\'s registered beacons, as /v1/detect does', async () => {
  const app = await createApp(dwell.url);
  const uuid = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
  const created = await signed(dwell.url, app, `/v2/apps/${app.app_key}/beacons/create`, { uuid, major: 902, minor: 1, venue_id: 'n5765826653' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  // A stay between two shops 6 m apart whose fixes alone cannot tell them apart (beacons-api.test.ts), the wine shop's beacon heard.
  const data = Array.from({ length: 10 }, (_, i) => ({
    timestamp: `2024-05-06T14:${String(10 + i).padStart(2, '0')}:00+02:00`,
    location: { lat: 43.73289 + ((i % 3) - 1) * 0.00004, long: 7.41832 + ((i % 4) - 1.5) * 0.00004, accuracy: 15 + (i % 3) * 5 },
    beacon_scan: [{ uuid, major: 902, minor: 1, rssi: -78, tx_power: -59 }],
  }));
  const body = { advertising_id: 'ad-beacon', events: [{ event_id: 'e1', type: 'visit', start_time: data[0].timestamp, end_time: data[9].timestamp, data }] };
  const e = await admin(`/admin/apps/${app.app_key}/explain`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.equal(e.status, 200, JSON.stringify(e.body));
  const detected = await signed(dwell.url, app, '/v1/detect', body);
  assert.equal(detected.body.data[0].visit.place.venues[0].id, 'n5765826653', 'the beacon decides the detection');
  assert.deepEqual(e.body.data, detected.body.data);
});
