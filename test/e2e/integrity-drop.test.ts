/**
 * The app setting `integrity: "drop"` (contract §12) on each delivery method: a visit that did not
 * pass is neither posted back nor exported to the bucket (and counted), one that passed is; with
 * "flag" (the default) both are delivered, the flagged one with its flags. A real receiver, the
 * loopback S3 server the bucket tests use, and the real server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { holdingReceiver } from '../helpers/dwell-cli.js';
import { counterSum } from '../helpers/scrape.js';
import { S3RVER_KEYS, listKeys, readObject, startS3, until, type LocalS3 } from '../bucket-helpers.js';

let s3: LocalS3;
let dwell: Running;
before(async () => {
  s3 = await startS3({ buckets: ['integrity'] });
  dwell = await startDwell({ ...TEST_CLOCK, DWELL_EXPORT_WINDOW_MS: '60000' });
});
after(async () => {
  await dwell.stop();
  await s3.close();
});

/** Two 25-minute visits, the second of mocked positions. */
function request(user: string) {
  const event = (id: string, hour: string, mocked: boolean) => ({
    event_id: id, type: 'visit', start_time: `2024-05-06T${hour}:25:00+02:00`, end_time: `2024-05-06T${hour}:50:00+02:00`,
    data: fixes(CASINO, `2024-05-06T${hour}`, [27, 31, 35, 40, 45]).map((s) => ({ ...s, location: { ...s.location, mocked } })),
  });
  return { advertising_id: user, events: [event('honest', '07', false), event('faked', '09', true)] };
}

const pending = async (app: TestApp) =>
  ((await (await fetch(`${dwell.url}/admin/apps/${app.app_key}/deliveries?status=pending`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { count: number }).count;
const dropped = () => counterSum(dwell, 'dwell_integrity_dropped_total');

test('postback: with "drop" the visit that did not pass is not posted; with "flag" it is, with its flags', async () => {
  const rx = holdingReceiver();
  const receiver = await rx;
  receiver.open();
  try {
    const drop = await createApp(dwell.url, { method: 'postback', url: receiver.url }, { integrity: 'drop' });
    const before = await dropped();
    const r = await signed(dwell.url, drop, '/v1/detect', request('drop-user'));
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await until('the honest visit posted', async () => receiver.arrivals.some((a) => a.body.data.user_info.app_key === drop.app_key), 30_000, 50);
    await until('nothing pending', async () => (await pending(drop)) === 0, 30_000, 100);
    const mine = receiver.arrivals.filter((a) => a.body.data.user_info.app_key === drop.app_key);
    assert.deepEqual(mine.map((a) => a.body.data.event_id), ['honest']);
    assert.deepEqual(mine[0].body.data.visit.integrity, { passed: true, flags: [] });
    assert.equal(await dropped(), before + 1);

    const flag = await createApp(dwell.url, { method: 'postback', url: receiver.url });
    assert.equal((await signed(dwell.url, flag, '/v1/detect', request('flag-user'))).status, 202);
    await until('both visits posted', async () => receiver.arrivals.filter((a) => a.body.data.user_info.app_key === flag.app_key).length === 2, 30_000, 50);
    const both = receiver.arrivals.filter((a) => a.body.data.user_info.app_key === flag.app_key);
    const faked = both.find((a) => a.body.data.event_id === 'faked');
    assert.deepEqual(faked?.body.data.visit.integrity, { passed: false, flags: ['mocked'] });
  } finally {
    receiver.close();
  }
});

test('bucket: with "drop" the visit that did not pass is not exported', async () => {
  const app = await createApp(dwell.url, {
    method: 'bucket', provider: 's3', bucket: 'integrity', prefix: 'drop', endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS,
  }, { integrity: 'drop' });
  const r = await signed(dwell.url, app, '/v1/detect', request('bucket-user'));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await advance(dwell, 61);
  const keys = await until('the object', async () => { const k = await listKeys(s3, 'integrity'); return k.length > 0 && k; }, 30_000, 200);
  assert.equal(keys.length, 1);
  const { lines } = await readObject(s3, 'integrity', keys[0]);
  assert.deepEqual(lines.map((l) => l.data.event_id), ['honest']);
  assert.deepEqual(lines[0]?.data?.visit?.integrity, { passed: true, flags: [] });
});
