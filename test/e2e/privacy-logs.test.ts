/**
 * Logs at info and above hold no coordinates, Wi-Fi names or BSSIDs, addresses or user ids
 * (contract §7): a realistic run (detections with locations and Wi-Fi, a geofence entered, a
 * postback app whose receiver is down, an erase and an export), then the server's logs are
 * searched for everything it was sent about the user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDwellApp } from '../helpers/dwell.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

const SSID = 'PrivateHomeNet-7731', BSSID = 'de:ad:be:ef:77:31';
const IDS = { advertising_id: 'ad-logcheck-5521', user_id: 'user-logcheck-5521' };

test('a realistic run leaves no coordinates, networks or ids in the info logs', async () => {
  await withDwellApp({ DWELL_LOG_LEVEL: 'info' }, async (dwell) => {
    const sync = dwell.app;
    // A postback app whose receiver refuses connections: its triggers fail and are retried.
    const down = await createApp(dwell.url, { method: 'postback', url: 'http://127.0.0.1:9/hook' });
    const fence = await signed(dwell.url, sync, `/v2/apps/${sync.app_key}/geofences/create`, { tag: 'casino', location: { lat: CASINO.lat, long: CASINO.long, radius: 150 }, ttl: 0, push_text: 'hi' });
    assert.equal(fence.status, 200);
    const wifi = (f: object) => ({ ...f, active_wifi: { ssid: SSID, bssid: BSSID, strength: -40 }, wifi_scan: [{ ssid: SSID, bssid: BSSID, strength: -40 }] });
    const body = {
      ...IDS, request_id: 'req-logcheck', custom_data: { email: 'someone@example.com' },
      events: [{ event_id: 'ev-logcheck', type: 'visit', start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00', data: fixes(CASINO, '2024-05-06T07', [27, 31, 35, 40, 45]).map(wifi) }],
    };
    const r = await signed(dwell.url, sync, '/v1/detect', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.geofence_events.length >= 1, 'the fence was entered');
    assert.equal((await signed(dwell.url, sync, '/v1/detect', { ...IDS, data: fixes(CASINO, '2024-05-07T10', [0, 3, 6, 9, 12]).map(wifi) })).status, 200);
    assert.equal((await signed(dwell.url, down, '/v1/detect', body)).status, 202);
    // A bad request naming the user: refused, not logged.
    assert.equal((await signed(dwell.url, sync, '/v1/detect', { ...IDS, data: [{ timestamp: 'x', location: { lat: 91.123456, long: CASINO.long } }] })).status, 400);
    await until('a failed postback attempt', async () => /dwell_postback_attempts_total\{[^}]*outcome="network_error"/.test(await scrape(dwell.url)));
    assert.equal((await signed(dwell.url, sync, `/v2/apps/${sync.app_key}/users/export?advertising_id=${IDS.advertising_id}`)).status, 200);
    assert.equal((await signed(dwell.url, sync, `/v2/apps/${sync.app_key}/users/erase`, IDS)).status, 200);
    const address = r.body.data[0].visit.place.estimated_address;
    assert.ok(address.formatted_address, 'an address to look for');
    await dwell.stop();

    const text = dwell.logs.join('\n');
    assert.ok(dwell.logs.some((l) => l.includes('"level":"info"')), 'the run logged at info');
    const secrets = [SSID, BSSID, IDS.advertising_id, IDS.user_id, 'someone@example.com', '43.739', '7.427', '91.123456',
      address.formatted_address, ...(address.street_address ? [address.street_address] : [])];
    for (const s of secrets) assert.ok(!text.includes(s), `the logs contain ${JSON.stringify(s)}:\n${dwell.logs.filter((l) => l.includes(s)).join('\n')}`);
  });
});
