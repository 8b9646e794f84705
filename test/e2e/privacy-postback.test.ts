/**
 * An erased user's triggers not yet delivered never arrive (contract §7), while another user's
 * do: the receiver fails at first, so both users' triggers wait in the outbox for a retry; the
 * erase comes; then the receiver recovers, once the other user's trigger has failed twice more:
 * an attempt already on its way at the erase (which privacy/routes.ts allows to arrive once) has
 * arrived and failed by then, however slow the machine, so what arrives after is a real retry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, startDwell } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

test('a postback app\'s pending triggers of an erased user never arrive; another user\'s do', async () => {
  let healthy = false;
  const arrivals: Array<{ user: string; ok: boolean }> = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const trigger = JSON.parse(Buffer.concat(chunks).toString());
      arrivals.push({ user: trigger.data.user_info.device_id, ok: healthy });
      res.writeHead(healthy ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const dwell = await startDwell();
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const app = await createApp(dwell.url, { method: 'postback', url });
    for (const user of ['ad-gone', 'ad-kept']) {
      const r = await signed(dwell.url, app, '/v1/detect', { ...visitRequest(), advertising_id: user, request_id: `req-${user}` });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    // Both users' triggers have failed once: they are pending, waiting for their retry.
    await until('a failed attempt for each user', () => ['ad-gone', 'ad-kept'].every((u) => arrivals.some((a) => a.user === u)));
    const listed = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-gone`);
    const held = listed.body.users[0].triggers;
    assert.ok(held.length >= 1, 'the export lists the pending triggers');
    assert.equal(held[0].status, 'pending');
    assert.equal(held[0].trigger.data.user_info.device_id, 'ad-gone');

    const erased = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: 'ad-gone' });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.equal(erased.body.erased.pending_triggers, held.length);
    const erasedAt = arrivals.length;
    await until('two more failed attempts of the kept user\'s trigger', () => arrivals.slice(erasedAt).filter((a) => a.user === 'ad-kept').length >= 2);
    healthy = true;

    await until('the kept user\'s triggers delivered', () => arrivals.some((a) => a.ok && a.user === 'ad-kept'));
    // Once nothing is pending, nothing more can arrive.
    await until('an empty outbox', async () => {
      const r = await fetch(`${dwell.url}/admin/apps/${app.app_key}/deliveries?status=pending`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return ((await r.json()) as any).count === 0;
    });
    assert.deepEqual(arrivals.filter((a) => a.ok && a.user === 'ad-gone'), [], 'no trigger of the erased user arrived');
    assert.equal((await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=ad-gone`)).body.users[0].triggers.length, 0);
  } finally {
    await dwell.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});

test('a deleted app\'s pending triggers never arrive; another app\'s, waiting for their retry, do', async () => {
  let healthy = false;
  const arrivals: Array<{ path: string; ok: boolean }> = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // The signature travels in the query (contract §3): the path alone says which app's hook it is.
      arrivals.push({ path: (req.url ?? '').split('?')[0], ok: healthy });
      res.writeHead(healthy ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const dwell = await startDwell();
  try {
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const gone = await createApp(dwell.url, { method: 'postback', url: `${base}/gone` });
    const kept = await createApp(dwell.url, { method: 'postback', url: `${base}/kept` });
    for (const app of [kept, gone]) {
      const r = await signed(dwell.url, app, '/v1/detect', { ...visitRequest(), advertising_id: 'ad-1' });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    await until('a failed attempt for each app', () => ['/gone', '/kept'].every((p) => arrivals.some((a) => a.path === p)));
    const del = await fetch(`${dwell.url}/admin/apps/${gone.app_key}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(del.status, 200, await del.text());
    healthy = true;
    await until('the kept app\'s triggers delivered', () => arrivals.some((a) => a.ok && a.path === '/kept'));
    assert.deepEqual(arrivals.filter((a) => a.ok && a.path === '/gone'), [], 'no trigger of the deleted app arrived');
  } finally {
    await dwell.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    fs.rmSync(dwell.dataDir, { recursive: true, force: true });
  }
});
