/**
 * Erase and export of one user (contract §7), over HTTP against the real server: erase then
 * export is empty and a new visit has no history; the same advertising id in another app is
 * untouched; both endpoints are signed by the app itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

/** A 25-minute structured visit at the casino on 2024-05-<day>, from 07:25+02:00. */
const casinoVisit = (ids: { advertising_id?: string; user_id?: string }, day: string) => ({
  ...ids,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});
const startOf = (day: string) => Date.parse(`2024-05-${day}T07:25:00+02:00`);
/** Each erase at a timestamp of its own: the same signed request twice would be refused as a replay (contract §1). */
let clock = Math.floor(Date.now() / 1000);
const erase = (app: TestApp, body: unknown, as: TestApp = app) =>
  signed(dwell.url, as, `/v2/apps/${app.app_key}/users/erase`, body, { timestamp: (clock = Math.max(clock + 1, Math.floor(Date.now() / 1000))) });
const exportOf = (app: TestApp, query: string, as: TestApp = app) => signed(dwell.url, as, `/v2/apps/${app.app_key}/users/export${query ? '?' + query : ''}`);

const dwell = dwellWithApp();

test('erase then export is empty, a new visit has no history, and another app keeps its own', async () => {
  const a = await createApp(dwell.url), b = await createApp(dwell.url);
  for (const app of [a, b]) {
    for (const day of ['06', '08']) assert.equal((await signed(dwell.url, app, '/v1/detect', casinoVisit({ advertising_id: 'ad-erase' }, day))).status, 200);
  }
  const before = await exportOf(a, 'advertising_id=ad-erase');
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.ok(before.body.users[0].record.visit_history.length >= 1, JSON.stringify(before.body));
  assert.ok(before.body.users[0].record.past_stays.length >= 1, 'the stays are exported');

  const r = await erase(a, { advertising_id: 'ad-erase' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result, 'SUCCESS');
  assert.equal(r.body.erased.user_records, 1);
  assert.ok(r.body.erased.visit_history_places >= 1, JSON.stringify(r.body));

  const after = await exportOf(a, 'advertising_id=ad-erase');
  assert.equal(after.status, 200);
  assert.deepEqual(after.body.users, [{ user: 'ad-erase', record: null, geofence_presence: null, triggers: [], recent_detections: [] }]);

  const next = await signed(dwell.url, a, '/v1/detect', casinoVisit({ advertising_id: 'ad-erase' }, '10'));
  assert.equal(Date.parse(next.body.data[0].visit.place.first_visit_time), startOf('10'), 'no history before the erase');
  assert.equal(Date.parse(next.body.data[0].visit.place.last_visit_time), startOf('10'));

  // App B's user with the same advertising id is another person: untouched.
  const other = await signed(dwell.url, b, '/v1/detect', casinoVisit({ advertising_id: 'ad-erase' }, '10'));
  assert.equal(Date.parse(other.body.data[0].visit.place.first_visit_time), startOf('06'));
  assert.ok((await exportOf(b, 'advertising_id=ad-erase')).body.users[0].record.visit_history.length >= 1);

  // Idempotent: erasing again, or a user never seen, answers 200 (the second erase finds the new visit's record).
  const second = await erase(a, { advertising_id: 'ad-erase' });
  assert.equal(second.body.erased?.user_records, 1, JSON.stringify(second.body));
  const again = await erase(a, { advertising_id: 'ad-erase' });
  assert.equal(again.status, 200);
  assert.ok(Object.values(again.body.erased).every((n) => n === 0), JSON.stringify(again.body));
});

test('erase by user_id erases the user keyed by it; both ids erase both', async () => {
  const a = await createApp(dwell.url);
  await signed(dwell.url, a, '/v1/detect', casinoVisit({ user_id: 'only-user' }, '06'));
  await signed(dwell.url, a, '/v1/detect', casinoVisit({ advertising_id: 'ad-2', user_id: 'user-2' }, '06'));
  assert.equal((await erase(a, { user_id: 'user-2' })).body.erased.user_records, 0, 'the user with an advertising id is keyed by it');
  const both = await erase(a, { advertising_id: 'ad-2', user_id: 'only-user' });
  assert.equal(both.body.erased.user_records, 2, JSON.stringify(both.body));
  const ex = await exportOf(a, 'advertising_id=ad-2&user_id=only-user');
  assert.deepEqual(ex.body.users.map((u: any) => [u.user, u.record]), [['ad-2', null], ['only-user', null]]);
});

test('erase and export need the app\'s own signature', async () => {
  const a = await createApp(dwell.url), b = await createApp(dwell.url);
  const path = `/v2/apps/${a.app_key}/users/erase`;
  const unsigned = await fetch(dwell.url + path, { method: 'POST', body: '{"advertising_id":"x"}', headers: { 'content-type': 'application/json' } });
  assert.equal(unsigned.status, 401);
  assert.equal(((await unsigned.json()) as any).error.code, 'missing_auth');
  const forged = await erase(a, { advertising_id: 'x' }, { ...a, app_secret: b.app_secret });
  assert.equal(forged.status, 401);
  assert.equal(forged.body.error.code, 'invalid_signature');
  const otherApp = await erase(a, { advertising_id: 'x' }, b);
  assert.equal(otherApp.status, 403);
  assert.equal(otherApp.body.error.code, 'forbidden');
  assert.equal((await exportOf(a, 'advertising_id=x', b)).status, 403);
  const unsignedExport = await fetch(`${dwell.url}/v2/apps/${a.app_key}/users/export?advertising_id=x`);
  assert.equal(unsignedExport.status, 401);
});

test('erase and export refuse requests that name no user', async () => {
  const a = await createApp(dwell.url);
  for (const body of [{}, { advertising_id: '' }, { advertising_id: 5 }, { advertizing_id: 'x' }, ['x']]) {
    const r = await erase(a, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.error.code, 'invalid_request');
  }
  assert.equal((await exportOf(a, 'device=x')).status, 400);
  assert.equal((await exportOf(a, '')).status, 400);
});
