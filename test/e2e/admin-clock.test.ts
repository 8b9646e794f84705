/**
 * POST /admin/clock (src/server/admin-clock.ts): refused unless the server was started with
 * DWELL_TEST_CLOCK=1; behind the admin token; forward only; answers the moved time.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDwell, type Running } from '../helpers/server.js';
import { admin } from '../helpers/client.js';
import { TEST_CLOCK } from '../helpers/clock.js';

const servers: Running[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

test('a server started without DWELL_TEST_CLOCK refuses to move its time (403), and asks the token first', async () => {
  const dwell = await startDwell();
  servers.push(dwell);
  const r = await admin(dwell.url, '/admin/clock', { body: { advance_s: 60 } });
  assert.deepEqual([r.status, r.body.error.code], [403, 'forbidden']);
  assert.match(r.body.error.message, /DWELL_TEST_CLOCK=1/);
  const anonymous = await fetch(dwell.url + '/admin/clock', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance_s":60}' });
  assert.equal(anonymous.status, 401);
});

test('with DWELL_TEST_CLOCK=1 it moves forward by what it was told and answers the new time', async () => {
  const started = await startDwell(TEST_CLOCK);
  servers.push(started);
  const dwell = started.nodes?.[0] ?? started; // one node's clock (a cluster pair has two)
  const lo = Date.now();
  const r = await admin(dwell.url, '/admin/clock', { body: { advance_s: 86_400 } });
  const hi = Date.now();
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body), ['now', 'now_ms', 'offset_s']);
  assert.equal(r.body.offset_s, 86_400);
  assert.ok(r.body.now_ms >= lo + 86_400_000 && r.body.now_ms <= hi + 86_400_000, 'a day ahead of the real time');
  assert.equal(r.body.now, new Date(r.body.now_ms).toISOString());
  assert.equal((await admin(dwell.url, '/admin/clock', { body: { advance_s: 0.5 } })).body.offset_s, 86_400.5, 'moves add up');
  for (const body of [{ advance_s: -1 }, { advance_s: '60' }, {}, { advance_s: 1, extra: true }]) {
    const bad = await admin(dwell.url, '/admin/clock', { body });
    assert.deepEqual([bad.status, bad.body.error.code], [400, 'invalid_request'], JSON.stringify(body));
  }
  assert.equal((await admin(dwell.url, '/admin/clock', { body: { advance_s: 0 } })).body.offset_s, 86_400.5, 'a refused move changes nothing');
});
