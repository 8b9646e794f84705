/**
 * Secrets never reach the logs, even at debug: the admin token, app secrets (before and after a
 * rotation), request signatures, a postback URL's password and token, a bucket's credentials.
 * A run that exercises each (admin calls right and wrong, signed requests good and bad, deliveries
 * that fail and log why), then the server's stderr is searched for every one of them. The server
 * runs with DWELL_SECRET_KEY: the key itself, and every sealed value the data directory holds,
 * are searched for too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { withDwellApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { createApp, signed, signHeaders } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';
import { newKey } from '../helpers/secrets.js';
import { openAppsDb } from '../../src/apps/apps-db.js';

const POSTBACK_PASSWORD = 'hunter2-postback-pw', POSTBACK_TOKEN = 'tok-hunter3-query';
const BUCKET_KEY_ID = 'AKIAHUNTER4EXAMPLE', BUCKET_SECRET = 'hunter5-bucket-secret-access-key';

test('no secret appears in the logs at debug', async () => {
  const key = newKey();
  await withDwellApp({ DWELL_LOG_LEVEL: 'debug', DWELL_EXPORT_WINDOW_MS: '200', DWELL_SECRET_GRACE_S: '60', DWELL_SECRET_KEY: key }, async (dwell) => {
    const admin = (path: string, init: RequestInit = {}, token = ADMIN_TOKEN) =>
      fetch(dwell.url + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const sync = dwell.app;
    const postback = await createApp(dwell.url, { method: 'postback', url: `http://user:${POSTBACK_PASSWORD}@127.0.0.1:9/hook?token=${POSTBACK_TOKEN}` });
    const bucket = await createApp(dwell.url, {
      method: 'bucket', provider: 's3', bucket: 'logs-check', region: 'us-east-1', endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: BUCKET_KEY_ID, secretAccessKey: BUCKET_SECRET },
    });
    const rotated = (await (await admin(`/admin/apps/${sync.app_key}/rotate-secret`, { method: 'POST' })).json()) as { app_secret: string };
    assert.equal((await admin('/admin/apps', { method: 'POST', body: '{}' }, 'not-the-admin-token')).status, 401);

    const signatures: string[] = [];
    for (const app of [sync, { ...sync, app_secret: rotated.app_secret }, postback, bucket]) {
      const bytes = gzipSync(JSON.stringify(visitRequest()));
      const h = signHeaders(app, 'POST', '/v1/detect', bytes);
      signatures.push(h['x-signature']);
      const r = await fetch(dwell.url + '/v1/detect', { method: 'POST', headers: { ...h, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bytes });
      assert.ok([200, 202].includes(r.status), String(r.status));
    }
    const wrong = await signed(dwell.url, sync, '/v1/detect', visitRequest(), { secret: 'a-wrong-secret-value' });
    assert.equal(wrong.status, 401);
    await until('the bucket upload to fail and be logged', () => dwell.logs.some((l) => l.includes('bucket export failed')), 30_000);
    await until('a failed postback', async () => (await (await admin(`/admin/apps/${postback.app_key}/deliveries?status=pending`)).json() as { count: number }).count > 0);
    await dwell.stop();

    const text = dwell.logs.join('\n');
    assert.ok(dwell.logs.some((l) => l.includes('"level":"debug"')), 'the run logged at debug');
    const { root, db } = openAppsDb(dwell.dataDir, { readOnly: true });
    const sealedValues = JSON.stringify([...db.getRange()].map((e) => e.value)).match(/dwl1\.[\w.-]+/g) ?? [];
    await root.close();
    assert.ok(sealedValues.length >= 5, `the apps are stored sealed: ${sealedValues.length} sealed values`);
    for (const s of [key, ...sealedValues, ADMIN_TOKEN, sync.app_secret, rotated.app_secret, postback.app_secret, bucket.app_secret, 'a-wrong-secret-value',
      ...signatures, POSTBACK_PASSWORD, POSTBACK_TOKEN, BUCKET_KEY_ID, BUCKET_SECRET]) {
      assert.ok(!text.includes(s), `the logs contain ${JSON.stringify(s)}:\n${dwell.logs.filter((l) => l.includes(s)).join('\n')}`);
    }
  });
});
