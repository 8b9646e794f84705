/**
 * Everything stored about a user belongs to one app (contract §7): the same advertising id in two
 * apps is two unrelated users, for visit history and for open stream stays. And a data directory
 * written before records were scoped still starts, without leaking its unscoped records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabaseOptionsWithPath } from 'lmdb';
import { startDwell, tempDir, type Running } from '../helpers/server.js';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

/** A 25-minute structured visit at the casino on 2024-05-<day>, from 07:25+02:00. */
const casinoVisit = (advertising_id: string, day: string) => ({
  advertising_id,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});
const startOf = (day: string) => Date.parse(`2024-05-${day}T07:25:00+02:00`);

const dwell = dwellWithApp();

test('the same advertising id in two apps shares no visit history', async () => {
  const a = await createApp(dwell.url), b = await createApp(dwell.url);
  const first = await signed(dwell.url, a, '/v1/detect', casinoVisit('shared-ad', '06'));
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const placeA = first.body.data[0].visit.place;
  assert.ok(placeA, 'app A\'s visit names a place');

  const second = await signed(dwell.url, b, '/v1/detect', casinoVisit('shared-ad', '08'));
  assert.equal(second.status, 200, JSON.stringify(second.body));
  const placeB = second.body.data[0].visit.place;
  assert.equal(placeB.id, placeA.id, 'the same venue');
  assert.equal(Date.parse(placeB.first_visit_time), startOf('08'), 'app B\'s first visit is its own');
  assert.equal(Date.parse(placeB.last_visit_time), startOf('08'));

  // App A still sees its own history.
  const third = await signed(dwell.url, a, '/v1/detect', casinoVisit('shared-ad', '10'));
  assert.equal(Date.parse(third.body.data[0].visit.place.first_visit_time), startOf('06'));
  assert.equal(Date.parse(third.body.data[0].visit.place.last_visit_time), startOf('06'));
});

test('an open stream stay in one app does not carry over to another', async () => {
  const a = await createApp(dwell.url), b = await createApp(dwell.url);
  // App A: four minutes at the casino, under the five-minute confirmation dwell: a stay left open.
  const opened = await signed(dwell.url, a, '/v1/detect', { advertising_id: 'stream-ad', data: fixes(CASINO, '2024-05-06T10', [0, 1, 2, 3, 4]) });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  assert.deepEqual(opened.body.data, []);
  // App B, same device, from 10:05 to 10:15: its stay starts near 10:05 (the stream puts a start
  // a little before the first fix), not with app A's at 10:00.
  const later = await signed(dwell.url, b, '/v1/detect', { advertising_id: 'stream-ad', data: fixes(CASINO, '2024-05-06T10', [5, 7, 9, 11, 13, 15]) });
  assert.equal(later.status, 200, JSON.stringify(later.body));
  assert.equal(later.body.data.length, 1, JSON.stringify(later.body.data));
  const start = Date.parse(later.body.data[0].visit.start_time);
  assert.ok(start > Date.parse('2024-05-06T10:02:00+02:00'), `app B's stay starts at ${later.body.data[0].visit.start_time}`);
});

test('records written before they were scoped by app neither leak nor break startup', async () => {
  // The casino's venue id, for the old record to name (from the server this file started).
  const probe = await signed(dwell.url, await createApp(dwell.url), '/v1/detect', casinoVisit('probe-ad', '01'));
  const venue = probe.body.data[0].visit.place.id as string;
  const dataDir = tempDir();
  let server: Running | undefined;
  try {
    // What the previous version wrote for a user: ['u', user], with no app, visits since 2020.
    // (lmdb-js hands useRecords to msgpackr; its types omit it.)
    const old = open({ path: path.join(dataDir, 'users'), useRecords: false, compression: false } as RootDatabaseOptionsWithPath);
    const since = Date.parse('2020-01-01T00:00:00Z');
    old.putSync(['u', 'old-ad'], { h: { [venue]: { f: since, l: since, p: -1, n: 3, i: 'v_old' } }, r: ['v_old'], v: [CASINO.lat, CASINO.long, 20, since / 1000], t: [venue, 0.9, '', 0] });
    await old.close();

    server = await startDwell({ DWELL_DATA_DIR: dataDir });
    const dropped = server.logs.map((l) => { try { return JSON.parse(l); } catch { return {}; } })
      .filter((e) => e.msg === 'dropped user records not scoped by app');
    const r = await signed(server.url, await createApp(server.url), '/v1/detect', casinoVisit('old-ad', '08'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(Date.parse(r.body.data[0].visit.place.first_visit_time), startOf('08'), 'no visit from the unscoped record');
    assert.equal(Date.parse(r.body.data[0].visit.place.last_visit_time), startOf('08'));
    assert.deepEqual(dropped.map((e) => e.count), [1], 'dropped once, with the count');
    await server.stop();

    // Once: the next start has nothing left to drop and says nothing.
    server = await startDwell({ DWELL_DATA_DIR: dataDir });
    assert.ok(!server.logs.some((l) => l.includes('not scoped by app')), 'no second drop');
  } finally {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
