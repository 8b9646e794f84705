/**
 * Contract §12 through the real server (embedded engine): each flag on both sides of its
 * threshold, `location.mocked` validated, a visit that did not pass teaching nothing (its
 * first/last visit times, the history, feedback 404, the learned networks), geofence events
 * flagged by the position that raised them, and /metrics. The server's time is the test clock,
 * started at NOW, so `clock_skew` is measured from a known instant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { sdkStamp } from '../helpers/stamps.js';
import { scrape } from '../helpers/scrape.js';
import { parseExposition } from '../helpers/prom-text.js';
import { advance } from '../helpers/clock.js';

const NOW = Date.parse('2024-06-10T12:00:00Z');
const dwell = dwellWithApp({ DWELL_TEST_CLOCK: new Date(NOW).toISOString() });

/** Metres per degree of latitude (the service's sphere). */
const M_PER_DEG = 111_195.08;
const north = (m: number) => ({ lat: CASINO.lat + m / M_PER_DEG, long: CASINO.long });

interface Fix { at: number; lat: number; long: number; accuracy?: number; mocked?: unknown; bssid?: string }
const signal = (f: Fix) => ({
  timestamp: sdkStamp(f.at, '+02:00'),
  location: { lat: f.lat, long: f.long, accuracy: f.accuracy ?? 15, speed: 0.1, ...(f.mocked !== undefined ? { mocked: f.mocked } : {}) },
  ...(f.bssid ? { wifi_scan: [{ bssid: f.bssid, ssid: 'net', strength: -50 }] } : {}),
});

/** A 25-minute stay at `where` from `start` (ms): five fixes, each with `extra`. */
function stay(id: string, where: { lat: number; long: number }, start: number, extra: Partial<Fix> = {}) {
  const data = [2, 6, 10, 15, 20].map((m, i) => signal({ at: start + m * 60_000, lat: where.lat + (i % 3 - 1) * 0.00004, long: where.long, ...extra }));
  return { event_id: id, type: 'visit', start_time: sdkStamp(start, '+02:00'), end_time: sdkStamp(start + 25 * 60_000, '+02:00'), data };
}
/** Two fixes in three minutes: a visit too short to be confirmed, which teaches no network. */
const glimpse = (where: { lat: number; long: number }, start: number, bssid: string) => ({
  event_id: 'g', type: 'visit', start_time: sdkStamp(start, 'Z'), end_time: sdkStamp(start + 180_000, 'Z'),
  data: [signal({ at: start + 30_000, ...where, bssid }), signal({ at: start + 150_000, ...where, bssid })],
});
const day = (d: number, hour = 9) => Date.parse(`2024-06-0${d}T0${hour}:00:00Z`);

async function detect(app: TestApp, body: Record<string, unknown>) {
  const r = await signed(dwell.url, app, '/v1/detect', body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}
const flagsOf = async (app: TestApp, body: Record<string, unknown>) => (await detect(app, body)).data.map((d: any) => d.visit.integrity.flags);

test('every visit carries integrity; an honest one passed, with no flags', async () => {
  const app = await createApp(dwell.url);
  const body = await detect(app, { advertising_id: 'honest', events: [stay('e1', CASINO, day(1))] });
  assert.deepEqual(body.data[0].visit.integrity, { passed: true, flags: [] });
});

test('location.mocked: a boolean; anything else (null included) is 400 at its path; true flags "mocked"', async () => {
  const app = await createApp(dwell.url);
  for (const bad of [null, 'true', 1]) {
    const r = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'm', events: [stay('e1', CASINO, day(1), { mocked: bad })] });
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(r.body.error.code, 'invalid_request');
    assert.equal(r.body.error.path, '/events/0/data/0/location/mocked');
  }
  const r = await signed(dwell.url, app, '/v1/detect', { advertising_id: 'm', data: [signal({ at: day(1), ...CASINO, mocked: 'yes' })] });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.path, '/data/0/location/mocked');
  assert.deepEqual(await flagsOf(app, { advertising_id: 'm1', events: [stay('e1', CASINO, day(1), { mocked: false })] }), [[]]);
  assert.deepEqual(await flagsOf(app, { advertising_id: 'm2', events: [stay('e1', CASINO, day(1), { mocked: true })] }), [['mocked']]);
});

test('inaccurate: every position worse than 1,000 m flags; 1,000 m does not', async () => {
  const app = await createApp(dwell.url);
  assert.deepEqual(await flagsOf(app, { advertising_id: 'i1', events: [stay('e1', CASINO, day(1), { accuracy: 1000 })] }), [[]]);
  assert.deepEqual(await flagsOf(app, { advertising_id: 'i2', events: [stay('e1', CASINO, day(1), { accuracy: 1001 })] }), [['inaccurate']]);
});

test('clock_skew: a signal more than 300 s after the server\'s clock flags; less does not', async () => {
  const app = await createApp(dwell.url);
  // The test clock runs on from where it was read: the request is answered a moment later, so 2 s either side.
  const ahead = async (s: number) => {
    const now = await advance(dwell, 0);
    return { advertising_id: `c${s}`, events: [stay('e1', CASINO, now + s * 1000 - 20 * 60_000)] };
  };
  assert.deepEqual(await flagsOf(app, await ahead(298)), [[]]);
  assert.deepEqual(await flagsOf(app, await ahead(302)), [['clock_skew']]);
});

test('jumped: consecutive positions more than 10 km apart after both accuracies, faster than 300 m/s', async () => {
  const app = await createApp(dwell.url);
  const t = day(2);
  /** Two fixes `m` metres apart, `s` seconds apart, each of accuracy `acc`: one event. */
  const pair = (user: string, m: number, s: number, acc: number) => ({
    advertising_id: user,
    events: [{ event_id: 'e', type: 'visit', start_time: sdkStamp(t, 'Z'), end_time: sdkStamp(t + 600_000, 'Z'),
      data: [signal({ at: t, ...CASINO, accuracy: acc }), signal({ at: t + s * 1000, ...north(m), accuracy: acc })] }],
  });
  assert.deepEqual(await flagsOf(app, pair('j1', 10_500, 20, 200)), [['jumped']], '10.1 km after accuracies');
  assert.deepEqual(await flagsOf(app, pair('j2', 10_500, 20, 300)), [[]], '9.9 km after accuracies');
  assert.deepEqual(await flagsOf(app, pair('j3', 12_020, 39, 10)), [['jumped']], '12 km in 39 s: 308 m/s');
  assert.deepEqual(await flagsOf(app, pair('j4', 12_020, 41, 10)), [[]], '12 km in 41 s: 293 m/s');
});

test('jumped across requests: the latest position held for the user, whichever request brought it', async () => {
  const app = await createApp(dwell.url);
  const t = day(3);
  const one = (user: string, at: number, where: { lat: number; long: number }) =>
    ({ advertising_id: user, events: [{ event_id: `e${at}`, type: 'visit', start_time: sdkStamp(at, 'Z'), end_time: sdkStamp(at + 60_000, 'Z'), data: [signal({ at, ...where })] }] });
  assert.deepEqual(await flagsOf(app, one('x1', t, CASINO)), [[]]);
  assert.deepEqual(await flagsOf(app, one('x1', t + 30_000, north(20_000))), [['jumped']]);
  // A user never seen has nothing before: the same far position passes.
  assert.deepEqual(await flagsOf(app, one('x2', t + 30_000, north(20_000))), [[]]);
  // Far apart, slowly enough: an hour later 20 km away passes.
  assert.deepEqual(await flagsOf(app, one('x3', t, CASINO)), [[]]);
  assert.deepEqual(await flagsOf(app, one('x3', t + 3_600_000, north(20_000))), [[]]);
});

test('wifi_mismatch: a network three other users\' stays placed more than 5 km away flags; two do not; a moving network never', async () => {
  const app = await createApp(dwell.url);
  const far = north(30_000);
  const teach = async (user: string, bssid: string, where = CASINO, d = 4) =>
    assert.deepEqual(await flagsOf(app, { advertising_id: user, events: [stay('e', where, day(d), { bssid })] }), [[]]);
  // Heard far away in a stay too short to teach (a confirmed one that passed would teach the network there).
  const heardFar = (user: string, bssid: string) => flagsOf(app, { advertising_id: user, events: [glimpse(far, day(5), bssid)] });
  await teach('w1', 'aa:00:00:00:00:01');
  await teach('w2', 'aa:00:00:00:00:01');
  assert.deepEqual(await heardFar('w9', 'aa:00:00:00:00:01'), [[]], 'learned from two users');
  // One of the two teachers is not "another user": its own network never accuses it.
  await teach('w3', 'aa:00:00:00:00:01');
  assert.deepEqual(await heardFar('w1', 'aa:00:00:00:00:01'), [[]], 'two others for w1');
  assert.deepEqual(await heardFar('w8', 'aa:00:00:00:00:01'), [['wifi_mismatch']], 'three others');
  // A network learned at places 3 km apart (a hotspot): never accuses.
  await teach('h1', 'aa:00:00:00:00:02');
  await teach('h2', 'aa:00:00:00:00:02');
  await teach('h3', 'aa:00:00:00:00:02');
  await teach('h4', 'aa:00:00:00:00:02', north(3_000), 6);
  assert.deepEqual(await heardFar('h9', 'aa:00:00:00:00:02'), [[]], 'a moving network');
  // Near where it was learned, the network agrees: no flag.
  assert.deepEqual(await flagsOf(app, { advertising_id: 'w7', events: [stay('e', north(4_000), day(5), { bssid: 'aa:00:00:00:00:01' })] }), [[]]);
});

test('a visit that did not pass teaches nothing: not the history, not feedback, not the learned networks', async () => {
  const app = await createApp(dwell.url);
  const user = { advertising_id: 'teach-nothing' };
  const first = (await detect(app, { ...user, events: [stay('e1', CASINO, day(1))] })).data[0].visit;
  const faked = (await detect(app, { ...user, events: [stay('e2', CASINO, day(2), { mocked: true })] })).data[0].visit;
  assert.deepEqual(faked.integrity, { passed: false, flags: ['mocked'] });
  assert.equal(faked.place.id, first.place.id);
  // Its own times come from the history without it.
  assert.equal(faked.place.first_visit_time, first.place.first_visit_time);
  assert.equal(faked.place.last_visit_time, first.place.first_visit_time);
  // The next honest visit's last visit is the first one: the faked one never entered the history.
  const third = (await detect(app, { ...user, events: [stay('e3', CASINO, day(3))] })).data[0].visit;
  assert.equal(third.place.last_visit_time, first.place.first_visit_time);
  const fb = (visit: string) => signed(dwell.url, app, `/v2/apps/${app.app_key}/visits/${visit}/feedback`, { ...user, type: 'confirm' });
  assert.equal((await fb(faked.id)).status, 404);
  assert.equal((await fb(third.id)).status, 200);
  // Networks: two honest teachers and one mocked one are two, not three.
  for (const [u, mocked] of [['n1', false], ['n2', false], ['n3', true]] as const) {
    await detect(app, { advertising_id: u, events: [stay('e', CASINO, day(4), { bssid: 'bb:00:00:00:00:01', mocked })] });
  }
  assert.deepEqual(await flagsOf(app, { advertising_id: 'n9', events: [glimpse(north(30_000), day(5), 'bb:00:00:00:00:01')] }), [[]]);
  await detect(app, { advertising_id: 'n4', events: [stay('e', CASINO, day(4), { bssid: 'bb:00:00:00:00:01' })] });
  assert.deepEqual(await flagsOf(app, { advertising_id: 'n8', events: [glimpse(north(30_000), day(5), 'bb:00:00:00:00:01')] }), [['wifi_mismatch']]);
  // Export shows the flags of the visits it lists.
  const ex = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=teach-nothing`);
  assert.equal(ex.status, 200);
  const listed = ex.body.users?.[0]?.record?.answered_visits;
  assert.ok(listed, JSON.stringify(ex.body).slice(0, 300));
  assert.ok(listed.length >= 2);
  for (const v of listed) assert.deepEqual(v.integrity, { passed: true, flags: [] });
  assert.ok(!listed.some((v: any) => v.visit_id === faked.id), 'the faked visit is not among the answered');
});

test('a stream stay reported again carries the flags of all its signals so far', async () => {
  const app = await createApp(dwell.url);
  const t = day(6);
  const fixes = (from: number, to: number, mocked: boolean) =>
    Array.from({ length: to - from }, (_, i) => signal({ at: t + (from + i) * 120_000, ...CASINO, mocked }));
  const user = { advertising_id: 'stream' };
  const a = await detect(app, { ...user, data: fixes(0, 5, false) });
  assert.equal(a.data.length, 1);
  assert.deepEqual(a.data[0].visit.integrity.flags, []);
  const b = await detect(app, { ...user, data: [...fixes(5, 8, true), signal({ at: t + 9 * 120_000, ...north(2_000) }), signal({ at: t + 10 * 120_000, ...north(2_050) })] });
  const again = b.data.find((d: any) => d.visit.id === a.data[0].visit.id);
  assert.ok(again, JSON.stringify(b.data));
  assert.deepEqual(again.visit.integrity, { passed: false, flags: ['mocked'] });
  const fb = await signed(dwell.url, app, `/v2/apps/${app.app_key}/visits/${again.visit.id}/feedback`, { ...user, type: 'confirm' });
  assert.equal(fb.status, 404);
});

test('geofence events carry the flags of the position that raised them; /metrics counts each flag', async () => {
  const app = await createApp(dwell.url);
  const r = await signed(dwell.url, app, `/v2/apps/${app.app_key}/geofences/create`, { tag: 't', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } });
  assert.equal(r.status, 200);
  const t = day(7);
  const body = await detect(app, { advertising_id: 'fence', data: [
    signal({ at: t, ...north(600) }), signal({ at: t + 60_000, ...CASINO, mocked: true }), signal({ at: t + 120_000, ...north(600) }),
  ] });
  const ev = body.geofence_events;
  assert.deepEqual(ev.map((e: any) => e.type), ['entry', 'exit']);
  assert.deepEqual(ev[0].integrity, { passed: false, flags: ['mocked'] });
  assert.deepEqual(ev[1].integrity, { passed: true, flags: [] });
  const m = parseExposition(await scrape(dwell.url)).samples.filter((s) => s.name === 'dwell_integrity_flags_total');
  const of = (flag: string) => m.find((s) => s.labels.flag === flag)?.value ?? 0;
  for (const flag of ['mocked', 'jumped', 'inaccurate', 'clock_skew', 'wifi_mismatch']) assert.ok(of(flag) >= 1, `${flag}: ${JSON.stringify(m)}`);
});
