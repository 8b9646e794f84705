/** The admin API of contract §6 over HTTP, and the secrecy of secrets. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp, withDwell, withDwellApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const dwell = dwellWithApp({ DWELL_SECRET_GRACE_S: '3600' });

const admin = (path: string, method = 'GET', body?: unknown, token = ADMIN_TOKEN) => fetch(dwell.url + path, {
  method,
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: body === undefined ? undefined : JSON.stringify(body),
}).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

test('the admin API refuses a missing or wrong token', async () => {
  assert.equal((await fetch(dwell.url + '/admin/apps/x')).status, 401);
  const wrong = await admin('/admin/apps', 'POST', { name: 'a', delivery: { method: 'sync' } }, 'nope');
  assert.equal(wrong.status, 401);
});

test('with no admin token configured, every admin call answers 401', async () => {
  await withDwell({ DWELL_ADMIN_TOKEN: '' }, async (closed) => {
    const r = await fetch(closed.url + '/admin/apps', { method: 'POST', headers: { authorization: 'Bearer ' }, body: '{}' });
    assert.equal(r.status, 401);
  });
});

test('create, show, update: the secret is returned once and never again', async () => {
  const created = await admin('/admin/apps', 'POST', { name: 'Shop app', delivery: { method: 'sync' } });
  assert.equal(created.status, 201);
  assert.match(created.body.app_key, /^ak_[0-9a-f]{24}$/);
  assert.match(created.body.app_secret, /^[0-9a-f]{64}$/);
  assert.equal(created.body.name, 'Shop app');
  assert.deepEqual(created.body.delivery, { method: 'sync' });

  const shown = await admin(`/admin/apps/${created.body.app_key}`);
  assert.equal(shown.status, 200);
  assert.equal(shown.body.name, 'Shop app');
  assert.equal(JSON.stringify(shown.body).includes(created.body.app_secret), false);

  const updated = await admin(`/admin/apps/${created.body.app_key}`, 'PATCH', { name: 'Renamed', delivery: { method: 'postback', url: 'http://127.0.0.1:9/hook' } });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.name, 'Renamed');
  assert.equal(updated.body.delivery.method, 'postback');
  assert.equal(JSON.stringify(updated.body).includes(created.body.app_secret), false);

  assert.equal((await admin('/admin/apps/ak_missing')).status, 404);
  const invalid = await admin('/admin/apps', 'POST', { name: 'x', delivery: { method: 'carrier-pigeon' } });
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.error.code, 'invalid_request');
  const notJson = await fetch(dwell.url + '/admin/apps', { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{nope' });
  assert.equal(((await notJson.json()) as any).error.code, 'invalid_json');

  assert.equal(dwell.logs.some((l) => l.includes(created.body.app_secret)), false, 'the secret is never logged');
});

test('bucket credentials are stored but never shown', async () => {
  const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI-very-secret' };
  const created = await admin('/admin/apps', 'POST', { name: 'b', delivery: { method: 'bucket', provider: 's3', bucket: 'bk', prefix: 'p', credentials: creds } });
  assert.equal(created.status, 201);
  const shown = await admin(`/admin/apps/${created.body.app_key}`);
  assert.equal(shown.body.delivery.bucket, 'bk');
  assert.equal(JSON.stringify(shown.body).includes(creds.secretAccessKey), false);
  assert.equal(JSON.stringify(created.body).includes(creds.secretAccessKey), false);
});

test('postback URLs: http(s) only, and private addresses refused unless allowed', async () => {
  await withDwell({ DWELL_POSTBACK_ALLOW_PRIVATE: 'false' }, async (strict) => {
    const post = (url: string) => fetch(strict.url + '/admin/apps', {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'p', delivery: { method: 'postback', url } }),
    }).then((r) => r.status);
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://192.168.0.1/', 'http://169.254.169.254/latest', 'http://[::1]/x', 'ftp://example.com/x']) {
      assert.equal(await post(url), 400, url);
    }
    assert.equal(await post('https://hooks.example.com/dwell'), 201);
  });
});

test('rotate-secret: the new secret signs, the old one still works during the grace period', async () => {
  const app = await createApp(dwell.url);
  const rotated = await admin(`/admin/apps/${app.app_key}/rotate-secret`, 'POST');
  assert.equal(rotated.status, 200);
  assert.match(rotated.body.app_secret, /^[0-9a-f]{64}$/);
  assert.notEqual(rotated.body.app_secret, app.app_secret);
  assert.equal((await signed(dwell.url, { ...app, app_secret: rotated.body.app_secret }, '/v1/detect', visitRequest())).status, 200);
  assert.equal((await signed(dwell.url, app, '/v1/detect', visitRequest())).status, 200, 'old secret within grace');
});

test('rotate-secret with no grace period: the old secret stops working at once', async () => {
  await withDwellApp({ DWELL_SECRET_GRACE_S: '0' }, async (strict) => {
    const app = strict.app;
    const r = await fetch(`${strict.url}/admin/apps/${app.app_key}/rotate-secret`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const { app_secret } = (await r.json()) as any;
    const old = await signed(strict.url, app, '/v1/detect', visitRequest());
    assert.equal(old.status, 401);
    assert.equal(old.body.error.code, 'invalid_signature');
    assert.equal((await signed(strict.url, { ...app, app_secret }, '/v1/detect', visitRequest())).status, 200);
  });
});

test('apps survive a restart', async () => {
  const app = await createApp(dwell.url);
  await dwell.restart();
  assert.equal((await signed(dwell.url, app, '/v1/detect', visitRequest())).status, 200);
});

test('postback apps get 202 only with every trigger queued, listed as pending deliveries', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: 'http://127.0.0.1:9/never' });
  const r = await signed(dwell.url, app, '/v1/detect', visitRequest());
  assert.equal(r.status, 202);
  assert.deepEqual(r.body, { result: 'SUCCESS', request_id: 'req-1' });
  const pending = await admin(`/admin/apps/${app.app_key}/deliveries?status=pending`);
  assert.equal(pending.status, 200);
  assert.ok(pending.body.deliveries.length >= 2, 'one trigger per event');
  const t = pending.body.deliveries.find((d: any) => d.trigger.data.event_id === 'ev-1').trigger;
  assert.equal(t.result, 'SUCCESS');
  assert.equal(t.data.request_id, 'req-1');
  assert.deepEqual(t.data.user_info, { user_id: 'user-1', device_id: 'ad-1', app_key: app.app_key, custom_data: { plan: 'gold' } });
  assert.equal(t.data.visit.event_type, 'visit');
});
