/**
 * Contract §12 in the cluster engine: two `dwell serve` nodes on one NATS JetStream. A user whose
 * requests go through both nodes is checked against the same previous position (`jumped`), and the
 * networks learned through either node accuse only once three other users placed them
 * (`wifi_mismatch`, the witnesses summed across nodes); a mocked visit teaches nothing there either.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedNats } from '../helpers/cluster.js';
import { startDwell, type Running } from '../helpers/server.js';
import { createApp, earlierEachTime, signed, type TestApp } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { sdkStamp } from '../helpers/stamps.js';
import { until } from '../helpers/until.js';

let A: Running, B: Running;
before(async () => {
  const { urls } = await sharedNats();
  [A, B] = await Promise.all([startDwell({ DWELL_STATE: urls }), startDwell({ DWELL_STATE: urls })]);
});
after(async () => { await Promise.all([A?.stop(), B?.stop()]); });

const stamp = earlierEachTime();
async function detect(node: Running, app: TestApp, body: unknown) {
  const r = await signed(node.url, app, '/v1/detect', body, { timestamp: stamp() });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}
const flagsOf = async (node: Running, app: TestApp, body: unknown) => (await detect(node, app, body)).data.map((d: any) => d.visit.integrity.flags);

const north = (m: number) => ({ lat: CASINO.lat + m / 111_195.08, long: CASINO.long });
const signal = (at: number, where: { lat: number; long: number }, extra: { bssid?: string; mocked?: boolean } = {}) => ({
  timestamp: sdkStamp(at, 'Z'),
  location: { lat: where.lat, long: where.long, accuracy: 15, speed: 0.1, ...(extra.mocked ? { mocked: true } : {}) },
  ...(extra.bssid ? { wifi_scan: [{ bssid: extra.bssid, ssid: 'net', strength: -50 }] } : {}),
});
const event = (id: string, start: number, minutes: number, data: unknown[]) =>
  ({ event_id: id, type: 'visit', start_time: sdkStamp(start, 'Z'), end_time: sdkStamp(start + minutes * 60_000, 'Z'), data });
/** A 25-minute confirmed stay that teaches the networks it heard. */
const stay = (where: { lat: number; long: number }, start: number, extra: { bssid?: string; mocked?: boolean } = {}) =>
  event('s', start, 25, [2, 6, 10, 15, 20].map((m) => signal(start + m * 60_000, where, extra)));
/** A three-minute glimpse: too short to teach. */
const glimpse = (where: { lat: number; long: number }, start: number, bssid: string) =>
  event('g', start, 3, [signal(start + 30_000, where, { bssid }), signal(start + 150_000, where, { bssid })]);

const T = Date.parse('2024-06-03T09:00:00Z');

test('jumped: the position held for the user is the same whichever node took the request', async () => {
  const app = await createApp(A.url);
  const one = (at: number, where: { lat: number; long: number }) => ({ advertising_id: 'traveller', events: [event(`e${at}`, at, 1, [signal(at, where)])] });
  assert.deepEqual(await flagsOf(A, app, one(T, CASINO)), [[]]);
  assert.deepEqual(await flagsOf(B, app, one(T + 30_000, north(20_000))), [['jumped']], '20 km in 30 s, through the other node');
  assert.deepEqual(await flagsOf(A, app, one(T + 3_600_000, north(20_100))), [[]], 'an hour later, 100 m on');
});

test('wifi_mismatch: witnesses learned through both nodes add up; a mocked stay is not one', async () => {
  const app = await createApp(A.url);
  const bssid = 'cc:00:00:00:00:01';
  const far = north(30_000);
  await detect(A, app, { advertising_id: 'c1', events: [stay(CASINO, T, { bssid })] });
  await detect(B, app, { advertising_id: 'c2', events: [stay(CASINO, T, { bssid })] });
  await detect(A, app, { advertising_id: 'c3', events: [stay(CASINO, T, { bssid, mocked: true })] });
  // The learned values reach the nodes' copies after their write window: wait until both copies hold c1 and c2's stays.
  let k = 0;
  const probe = async (node: Running) => (await flagsOf(node, app, { advertising_id: `probe-${k++}`, events: [glimpse(far, T + 86_400_000, bssid)] }))[0];
  await until('two witnesses placed the network in both copies', async () => {
    // Not flagged yet either way: two other users, and the mocked one teaches nothing.
    assert.deepEqual(await probe(A), []);
    assert.deepEqual(await probe(B), []);
    return true;
  }, 10_000, 200);
  await detect(B, app, { advertising_id: 'c4', events: [stay(CASINO, T, { bssid })] });
  await until('three other users: the network accuses, through A', async () => (await probe(A)).includes('wifi_mismatch'), 30_000, 200);
  await until('and through B', async () => (await probe(B)).includes('wifi_mismatch'), 30_000, 200);
});
