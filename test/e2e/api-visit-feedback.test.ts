/**
 * Visit feedback (contract §10), against the real server: taken, used by the user's next stay
 * (the named venue ranks first and its first_visit_time follows), exported and erased with the
 * user (§7), refused for a visit not answered to this user in this app, and checked as input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

const dwell = dwellWithApp();

/** A 25-minute structured visit at the casino on 2024-05-<day>, from 07:25+02:00. */
const visitAt = (user: Record<string, string>, day: string) => ({
  ...user,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});
const startOf = (day: string) => Date.parse(`2024-05-${day}T07:25:00+02:00`);

async function detect(app: TestApp, user: Record<string, string>, day: string) {
  const r = await signed(dwell.url, app, '/v1/detect', visitAt(user, day));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const visit = r.body.data[0].visit;
  assert.ok(visit.place?.id, 'the visit names a place');
  return visit;
}

const feedback = (app: TestApp, visitId: string, body: Record<string, unknown>) =>
  signed(dwell.url, app, `/v2/apps/${app.app_key}/visits/${encodeURIComponent(visitId)}/feedback`, body);

test('wrong_venue: the named venue is the user\'s from then on (it ranks first at their next stay there, and its first visit is the corrected one)', async () => {
  const app = await createApp(dwell.url);
  const user = { advertising_id: 'fb-corrected' };
  const first = await detect(app, user, '10');
  const truth = first.place.venues[1].id;
  assert.notEqual(first.place.id, truth);
  const r = await feedback(app, first.id, { ...user, type: 'wrong_venue', venue_id: truth });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: 'SUCCESS' });
  const next = await detect(app, user, '12');
  assert.equal(next.place.id, truth, `the corrected venue ranks first: ${JSON.stringify(next.place.venues.slice(0, 3))}`);
  assert.equal(Date.parse(next.place.first_visit_time), startOf('10'), 'its first visit is the corrected one');
  assert.equal(Date.parse(next.place.last_visit_time), startOf('10'));
  // The same two stays in an app that was given no feedback: the ranking alone keeps its first answer.
  const plain = await createApp(dwell.url);
  await detect(plain, user, '10');
  assert.equal((await detect(plain, user, '12')).place.id, first.place.id, 'without feedback the answer would have stayed');
});

test('feedback again replaces the earlier one; not_a_stop takes the stay out of the history', async () => {
  const app = await createApp(dwell.url);
  const user = { user_id: 'fb-changes-mind' };
  const first = await detect(app, user, '10');
  const answered = first.place.id;
  assert.equal((await feedback(app, first.id, { ...user, type: 'wrong_venue', venue_id: first.place.venues[1].id })).status, 200);
  assert.equal((await feedback(app, first.id, { ...user, type: 'confirm' })).status, 200, 'confirm replaces wrong_venue');
  let next = await detect(app, user, '12');
  assert.equal(next.place.id, answered);
  assert.equal(Date.parse(next.place.first_visit_time), startOf('10'), 'the confirmed visit is back in the history');
  // Both visits were no stop: the third visit there is the first.
  for (const v of [first, next]) assert.equal((await feedback(app, v.id, { ...user, type: 'not_a_stop' })).status, 200);
  next = await detect(app, user, '14');
  assert.equal(Date.parse(next.place.first_visit_time), startOf('14'), 'no earlier visit remains');
  const exported = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?user_id=fb-changes-mind`);
  const visits = exported.body.users[0].record.answered_visits;
  assert.deepEqual(visits.map((v: any) => v.feedback?.type ?? null), ['not_a_stop', 'not_a_stop', null]);
  assert.equal(exported.body.users[0].record.past_stays.length, 1, 'only the last stay is a past stay');
});

test('feedback is exported and erased with the user (contract §7)', async () => {
  const app = await createApp(dwell.url);
  const user = { advertising_id: 'fb-private' };
  const v = await detect(app, user, '10');
  const venue = v.place.venues[2].id;
  assert.equal((await feedback(app, v.id, { ...user, type: 'wrong_venue', venue_id: venue })).status, 200);
  const exported = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=fb-private`);
  assert.equal(exported.status, 200, JSON.stringify(exported.body));
  const [kept] = exported.body.users[0].record.answered_visits;
  assert.equal(kept.visit_id, v.id);
  assert.equal(kept.answered_place_id, v.place.id);
  assert.equal(kept.history_place_id, venue);
  assert.equal(kept.feedback.type, 'wrong_venue');
  assert.equal(kept.feedback.venue_id, venue);
  const erased = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/erase`, user);
  assert.equal(erased.status, 200, JSON.stringify(erased.body));
  const after = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=fb-private`);
  assert.equal(after.body.users[0].record, null, 'nothing of the user remains');
  const again = await feedback(app, v.id, { ...user, type: 'confirm' });
  assert.equal(again.status, 404, 'an erased visit takes no feedback');
});

test('a visit not answered to this user in this app is 404, another app\'s included', async () => {
  const app = await createApp(dwell.url), other = await createApp(dwell.url);
  const user = { advertising_id: 'fb-scoped' };
  const theirs = await detect(other, user, '10');
  const r = await feedback(app, theirs.id, { ...user, type: 'confirm' });
  assert.equal(r.status, 404, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'not_found');
  const mine = await detect(app, user, '10');
  assert.equal((await feedback(app, mine.id, { advertising_id: 'someone-else', type: 'confirm' })).status, 404, 'another user\'s visit');
  assert.equal((await feedback(app, 'v_not-a-visit', { ...user, type: 'confirm' })).status, 404, 'an id never answered');
  assert.equal((await feedback(other, theirs.id, { ...user, type: 'confirm' })).status, 200, 'its own app takes it');
  const wrongPath = await signed(dwell.url, app, `/v2/apps/${other.app_key}/visits/${theirs.id}/feedback`, { ...user, type: 'confirm' });
  assert.equal(wrongPath.status, 403, 'the path names another app than the signer');
});

test('bad feedback is a 400 at its path', async () => {
  const app = await createApp(dwell.url);
  const user = { advertising_id: 'fb-input' };
  const v = await detect(app, user, '10');
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...user, type: 'wrong_venue', venue_id: 'no-such-venue' }, '/venue_id'],
    [{ ...user, type: 'wrong_venue' }, '/venue_id'],
    [{ ...user, type: 'confirm', venue_id: v.place.venues[1].id }, '/venue_id'],
    [{ ...user, type: 'maybe' }, '/type'],
    [{ ...user, type: 'confirm', extra: 1 }, '/extra'],
    [{ type: 'confirm' }, ''],
  ];
  for (const [body, path] of cases) {
    const r = await feedback(app, v.id, body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path ?? '', path, JSON.stringify(r.body));
  }
});
