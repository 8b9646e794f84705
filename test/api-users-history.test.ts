/**
 * What a request remembers (contract §2): first/last visit times survive uploads that arrive
 * out of order; a request without any id has no history.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startDwell, type Running } from './helpers/server.js';
import { createApp, signed, type TestApp } from './helpers/client.js';
import { CASINO, fixes } from './helpers/requests.js';

let dwell: Running;
let app: TestApp;
before(async () => { dwell = await startDwell(); app = await createApp(dwell.url); });
after(async () => { await dwell.stop(); fs.rmSync(dwell.dataDir, { recursive: true, force: true }); });

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
  const r = await signed(dwell.url, app, '/v1/detect', casinoVisit(ids, day));
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
