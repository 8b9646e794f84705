/**
 * Contract §12 `wifi_mismatch` in the embedded engine against networks established either way:
 * learned before the server started (read from the stored places after a restart on the same data
 * directory), or after it (the thread's cache of learned places must see the new witnesses).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDwellApp, type DwellApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { sdkStamp } from '../helpers/stamps.js';

const NOW = Date.parse('2024-06-10T12:00:00Z');
const M_PER_DEG = 111_195.08;
const FAR = { lat: CASINO.lat + 30_000 / M_PER_DEG, long: CASINO.long };

const signal = (at: number, where: { lat: number; long: number }, bssids: string[]) => ({
  timestamp: sdkStamp(at, '+02:00'),
  location: { lat: where.lat, long: where.long, accuracy: 15, speed: 0.1 },
  wifi_scan: bssids.map((bssid, i) => ({ bssid, ssid: 'net', strength: -50 - i })),
});
const day = (d: number) => Date.parse(`2024-06-0${d}T09:00:00Z`);
/** A confirmed 25-minute stay at the casino that hears `bssid`: it teaches the network there. */
const stay = (bssid: string, start: number) => ({
  event_id: 's', type: 'visit', start_time: sdkStamp(start, '+02:00'), end_time: sdkStamp(start + 25 * 60_000, '+02:00'),
  data: [2, 6, 10, 15, 20].map((m, i) => signal(start + m * 60_000, { lat: CASINO.lat + (i % 3 - 1) * 0.00004, long: CASINO.long }, [bssid])),
});
/** 30 km north, too short to teach: one transit whose scans hear `bssids` among networks never learned, then a glimpse hearing them alone. */
const far = (bssids: string[], start: number) => [
  { event_id: 't', type: 'transit', start_time: sdkStamp(start, 'Z'), end_time: sdkStamp(start + 120_000, 'Z'),
    data: [signal(start + 30_000, FAR, ['cc:00:00:00:10:01', ...bssids, 'cc:00:00:00:10:02']), signal(start + 90_000, FAR, ['cc:00:00:00:10:03'])] },
  { event_id: 'g', type: 'visit', start_time: sdkStamp(start + 120_000, 'Z'), end_time: sdkStamp(start + 300_000, 'Z'),
    data: [signal(start + 150_000, FAR, bssids), signal(start + 270_000, FAR, bssids)] },
];

async function flagsOf(dwell: DwellApp, user: string, events: unknown[]): Promise<string[][]> {
  const r = await signed(dwell.url, dwell.app, '/v1/detect', { advertising_id: user, events });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.map((d: any) => d.visit.integrity.flags);
}

test('wifi_mismatch holds across a restart: networks established before it, and after it, accuse; the others never do', async () => {
  await withDwellApp({ DWELL_STATE: 'lmdb', DWELL_TEST_CLOCK: new Date(NOW).toISOString() }, async (dwell) => {
    const teach = async (user: string, bssid: string) => assert.deepEqual(await flagsOf(dwell, user, [stay(bssid, day(4))]), [[]]);
    for (const u of ['a1', 'a2', 'a3']) await teach(u, 'cc:00:00:00:00:0a');
    for (const u of ['b1', 'b2']) await teach(u, 'cc:00:00:00:00:0b');
    // Upper case as some phones write it: the same network.
    assert.deepEqual(await flagsOf(dwell, 'x1', far(['CC:00:00:00:00:0A'], day(5))), [['wifi_mismatch'], ['wifi_mismatch']], 'three others, before the restart');
    assert.deepEqual(await flagsOf(dwell, 'x2', far(['cc:00:00:00:00:0b'], day(5))), [[], []], 'two others');

    await dwell.restart();
    assert.deepEqual(await flagsOf(dwell, 'x3', far(['cc:00:00:00:00:0a'], day(6))), [['wifi_mismatch'], ['wifi_mismatch']], 'established before the restart');
    assert.deepEqual(await flagsOf(dwell, 'x4', far(['cc:00:00:00:00:0b'], day(6))), [[], []], 'still two others');
    await teach('b3', 'cc:00:00:00:00:0b');
    assert.deepEqual(await flagsOf(dwell, 'x5', far(['cc:00:00:00:00:0b'], day(6))), [['wifi_mismatch'], ['wifi_mismatch']], 'the third user taught it after the restart');
    // Its own teachers are not accused by it: two others each.
    assert.deepEqual(await flagsOf(dwell, 'b3', far(['cc:00:00:00:00:0b'], day(7))), [[], []]);
  });
});
