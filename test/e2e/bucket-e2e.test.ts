/**
 * Bucket export end to end: the real `dwell serve` (its delivery worker runs the exporter), an app
 * created through the admin API with S3 settings pointing at s3rver, a signed request answered
 * 202, and its trigger responses read back from the bucket. The batch window (a minute) is passed
 * by moving the server's clock (helpers/clock.ts), not waited for.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed } from '../helpers/client.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';
import { visitRequest } from '../helpers/requests.js';
import { OBJECT_NAME, S3RVER_KEYS, listKeys, readObject, startS3, until, type LocalS3 } from '../bucket-helpers.js';

let s3: LocalS3;
let dwell: Running;
before(async () => {
  s3 = await startS3({ buckets: ['dwell-e2e'] });
  dwell = await startDwell({ ...TEST_CLOCK, DWELL_EXPORT_WINDOW_MS: '60000' });
});
after(async () => {
  await dwell.stop();
  await s3.close();
});

const admin = (path: string) => fetch(dwell.url + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

test('a 202 request\'s triggers land in the app\'s S3 bucket as gzip JSON lines', async () => {
  const app = await createApp(dwell.url, {
    method: 'bucket', provider: 's3', bucket: 'dwell-e2e', prefix: 'dwell', endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS,
  });
  const shown = await (await admin(`/admin/apps/${app.app_key}`)).json() as { delivery: { credentials: unknown } };
  assert.equal(shown.delivery.credentials, '(set)', 'the admin API never returns credentials');

  const r = await signed(dwell.url, app, '/v1/detect', visitRequest());
  assert.equal(r.status, 202, JSON.stringify(r.body));
  // The batch closes a minute after its oldest trigger, on the server's clock: moved past it, the
  // upload starts at once (the exporter is woken); a window read off the real clock would not close
  // within the wait below.
  await advance(dwell, 61);
  const keys = await until('the object', async () => { const k = await listKeys(s3, 'dwell-e2e'); return k.length > 0 && k; }, 30_000, 200);
  assert.equal(keys.length, 1);
  const m = OBJECT_NAME.exec(keys[0]);
  assert.ok(m, keys[0]);
  assert.equal(m[1], 'dwell');
  assert.equal(m[4], app.app_key);
  const { lines } = await readObject(s3, 'dwell-e2e', keys[0]);
  assert.equal(lines.length, 2, 'one line per event: a visit and a transit');
  for (const line of lines) {
    assert.equal(line.result, 'SUCCESS');
    assert.equal(line.data.request_id, r.body.request_id);
    assert.match(line.data.id, /^tr_/);
    assert.deepEqual(line.data.user_info, { user_id: 'user-1', device_id: 'ad-1', app_key: app.app_key, custom_data: { plan: 'gold' } });
  }
  assert.deepEqual(lines.map((l) => l.data.event_id).sort(), ['ev-1', 'ev-2'], 'lines in no promised order');

  await until('no pending deliveries', async () => {
    const body = await (await admin(`/admin/apps/${app.app_key}/deliveries?status=pending`)).json() as { count: number };
    return body.count === 0;
  }, 10_000);
  const metrics = await until('export metrics', async () => {
    const text = await scrape(dwell.url);
    return text.includes(`dwell_bucket_export_attempts_total{app_key="${app.app_key}",outcome="ok"} 1`) && text;
  }, 5_000);
  assert.match(metrics, new RegExp(`dwell_bucket_export_triggers_total\\{app_key="${app.app_key}",outcome="ok"\\} 2`));
  // No credentials field or key name in any line (the start-up warning may name the word itself).
  assert.ok(!dwell.logs.some((l) => /secretAccessKey|accessKeyId|"credentials"/.test(l)), 'credentials are not logged');
});
