/**
 * Who a request is about, and what it remembers (contract §2): the user is advertising_id when
 * present and not empty, else user_id, for visits and geofences alike; first/last visit times
 * survive uploads that arrive out of order; a request without any id has no history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

const dwell = dwellWithApp();

/** A 25-minute structured visit at the casino on 2024-05-<day>, from 07:25+02:00. */
const casinoVisit = (ids: Record<string, string>, day: string) => ({
  ...ids,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});
const startOf = (day: string) => Date.parse(`2024-05-${day}T07:25:00+02:00`);

async function times(ids: Record<string, string>, day: string) {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', casinoVisit(ids, day));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const p = r.body.data[0].visit.place;
  assert.ok(p?.id, 'the visit names a place');
  return { first: Date.parse(p.first_visit_time), last: Date.parse(p.last_visit_time) };
}

test('uploads out of order: an older visit never moves last_visit_time back', async () => {
  const user = { advertising_id: 'late-uploader' };
  assert.deepEqual(await times(user, '12'), { first: startOf('12'), last: startOf('12') }, 'T2: a first visit');
  // T1 < T2 arrives later: it is now the first visit, and nothing came before it.
  assert.deepEqual(await times(user, '10'), { first: startOf('10'), last: startOf('10') }, 'T1, uploaded late');
  // T3 > T2: the latest visit before it is still T2, not the late T1.
  assert.deepEqual(await times(user, '14'), { first: startOf('10'), last: startOf('12') }, 'T3');
});

test('without any user id, first and last visit times are the visit\'s own start', async () => {
  await times({ advertising_id: 'someone-else' }, '03'); // history of another user must not matter
  assert.deepEqual(await times({}, '05'), { first: startOf('05'), last: startOf('05') });
  assert.deepEqual(await times({}, '07'), { first: startOf('07'), last: startOf('07') }, 'no history kept either');
});

test('an empty advertising_id counts as absent: the user is user_id, for visits and geofences alike', async () => {
  const fenced = await createApp(dwell.url);
  const made = await signed(dwell.url, fenced, `/v2/apps/${fenced.app_key}/geofences/create`, { tag: 'casino', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const first = await signed(dwell.url, fenced, '/v1/detect', casinoVisit({ advertising_id: '', user_id: 'only-user-id' }, '16'));
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(first.body.geofence_events.map((e: any) => e.type), ['entry']);
  // The same user without the empty advertising_id: already inside, and with the first visit.
  const again = await signed(dwell.url, fenced, '/v1/detect', casinoVisit({ user_id: 'only-user-id' }, '18'));
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual(again.body.geofence_events, [], 'no second entry: one user, one presence');
  assert.equal(Date.parse(again.body.data[0].visit.place.last_visit_time), startOf('16'), 'the same user\'s history');
});

test('users with an empty advertising_id each get their own geofence entry', async () => {
  const fenced = await createApp(dwell.url);
  const made = await signed(dwell.url, fenced, `/v2/apps/${fenced.app_key}/geofences/create`, { tag: 'casino', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  for (const user_id of ['walker-a', 'walker-b']) {
    const r = await signed(dwell.url, fenced, '/v1/detect', { advertising_id: '', user_id, data: fixes(CASINO, '2024-06-01T10', [0, 1, 2]) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.geofence_events.map((e: any) => [e.type, e.geofence_id]), [['entry', made.body]], `${user_id} enters`);
  }
});
