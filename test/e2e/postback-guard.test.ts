/**
 * The private-address guard for postbacks (contract §6, DWELL_POSTBACK_ALLOW_PRIVATE=false): every
 * textual form of a loopback, private or link-local address is refused at app creation, at send
 * time and at connect time, and a real receiver on 127.0.0.1 gets nothing. The classifier's own
 * table is in postback-guard-address.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildConnector } from 'undici';
import { guardConnect } from '../../src/net/address-guard.js';
import { PostbackSender } from '../../src/delivery/postback/sender.js';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { until } from '../helpers/until.js';

/** A receiver on loopback that counts connections as well as requests: "nothing" means neither. */
let receiver: http.Server;
let port = 0;
let connections = 0;
const requests: string[] = [];
before(async () => {
  receiver = http.createServer((req, res) => {
    requests.push(`${req.headers.host}${req.url}`);
    res.end('ok');
  });
  receiver.on('connection', () => connections++);
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});

/** URLs whose host is loopback, private or link-local in some spelling; those with PORT aim at the receiver. */
const BAD_URLS = [
  'http://[::ffff:127.0.0.1]:PORT/a', 'http://[::ffff:7f00:1]:PORT/b', 'http://2130706433:PORT/c',
  'http://0177.0.0.1/', 'http://0x7f.1/', 'http://0.0.0.0/', 'http://[::]/', 'http://[::127.0.0.1]/',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::10.0.0.1]/', 'http://[2002:7f00:1::]/', 'http://100.64.0.1/', 'http://169.254.169.254/latest/meta-data',
  'http://[fc00::1]/', 'http://[fd12:3456::1]/', 'http://[fe80::1]/', 'https://localhost/', 'http://localhost./',
  'http://api.localhost/', 'http://api.localhost./',
];

const call = (dwell: Running, path: string, method: string, body?: unknown) => fetch(dwell.url + path, {
  method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
}).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/**
 * The server both tests below talk to, started once (each start costs seconds of CPU): apps aimed
 * at the loopback receiver were saved while private addresses were allowed, then the server was
 * restarted on the same data directory without DWELL_POSTBACK_ALLOW_PRIVATE.
 */
let strictServer: Promise<{ strict: Running; smuggled: TestApp[] }> | undefined;
const restartedStrict = () => (strictServer ??= (async () => {
  const open = await startDwell({ DWELL_POSTBACK_ALLOW_PRIVATE: 'true' });
  const smuggled: TestApp[] = [];
  try {
    for (const raw of BAD_URLS.filter((u) => u.includes('PORT'))) smuggled.push(await createApp(open.url, { method: 'postback', url: raw.replace('PORT', String(port)) }));
  } finally {
    await open.stop();
  }
  return { strict: await startDwell({ DWELL_DATA_DIR: open.dataDir, DWELL_POSTBACK_ALLOW_PRIVATE: 'false' }), smuggled };
})());
after(async () => {
  if (!strictServer) return;
  const { strict } = await strictServer;
  await strict.stop();
  rmSync(strict.dataDir, { recursive: true, force: true });
});

test('admin API without DWELL_POSTBACK_ALLOW_PRIVATE: every spelling is refused at create and update, public ones accepted', async () => {
  const { strict } = await restartedStrict();
  const app = await createApp(strict.url, { method: 'postback', url: 'https://hooks.example.com/dwell' });
  for (const raw of BAD_URLS) {
    const url = raw.replace('PORT', String(port));
    for (const [path, method] of [['/admin/apps', 'POST'], [`/admin/apps/${app.app_key}`, 'PATCH']]) {
      const r = await call(strict, path, method, { name: 'p', delivery: { method: 'postback', url } });
      assert.equal(r.status, 400, `${method} ${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'invalid_request', url);
      assert.equal(r.body.error.path, '/delivery/url', url);
      assert.match(r.body.error.message, /must reach a public address, got .+ \(.+\); set DWELL_POSTBACK_ALLOW_PRIVATE=true/, url);
    }
  }
  for (const url of ['https://hooks.example.com/x', 'http://[2606:4700:4700::1111]/x', 'http://[64:ff9b::8.8.8.8]/x', 'http://localhost.example.com/x']) {
    assert.equal((await call(strict, '/admin/apps', 'POST', { name: 'p', delivery: { method: 'postback', url } })).status, 201, url);
  }
  assert.equal((await call(strict, `/admin/apps/${app.app_key}`, 'GET')).body.delivery.url, 'https://hooks.example.com/dwell', 'refused updates change nothing');
  assert.equal(connections, 0, 'the receiver was never contacted');
});

test('apps saved while private addresses were allowed: after a restart without, the loopback receiver gets nothing and the triggers die saying why', async () => {
  const { strict, smuggled: apps } = await restartedStrict();
  for (const [i, app] of apps.entries()) assert.equal((await signed(strict.url, app, '/v1/detect', { ...visitRequest(), request_id: `smuggled-${i}` })).status, 202);
  // Settled: nothing is pending any more, whether it was delivered or given up.
  await until('every trigger settled', async () => {
    for (const app of apps) if ((await call(strict, `/admin/apps/${app.app_key}/deliveries?status=pending`, 'GET')).body.count !== 0) return false;
    return true;
  });
  assert.deepEqual(requests, [], 'no postback reached the loopback receiver');
  assert.equal(connections, 0, 'not even a connection');
  for (const app of apps) {
    const dead = (await call(strict, `/admin/apps/${app.app_key}/deliveries?status=dead`, 'GET')).body;
    assert.equal(dead.count, 2, `${app.delivery.url}: both triggers dead`);
    for (const d of dead.deliveries) assert.match(d.last_error, /is a private, loopback or link-local address \(.*loopback\)/, app.delivery.url as string);
  }
});

test('the sender: names resolving to any private form are refused before connecting (DNS answers checked as connected)', async () => {
  const answers: Record<string, string[]> = {
    'mapped.example': ['::ffff:127.0.0.1'], 'mapped-hex.example': ['::ffff:7f00:1'], 'compat.example': ['::7f00:1'],
    'nat64.example': ['64:ff9b::a00:1'], 'zero.example': ['0.0.0.0'], 'unspecified6.example': ['::'], 'loop6.example': ['::1'],
    'cgnat.example': ['100.64.0.1'], 'metadata.example': ['169.254.169.254'], 'ula.example': ['fd00::1'],
    'linklocal6.example': ['fe80::1'], 'ten.example': ['10.0.0.1'], 'mixed.example': ['93.184.216.34', '::ffff:7f00:1'],
    'garbage.example': ['not-an-address'],
  };
  const fakeDns = (host: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: Array<{ address: string; family: number }>) => void) =>
    cb(null, answers[host].map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  const s = new PostbackSender({ allowPrivate: false, timeoutMs: 5000, resolve: fakeDns });
  const payload = { id: 'tr_guard', body: Buffer.from('{}') };
  try {
    for (const [name, addresses] of Object.entries(answers)) {
      const r = await s.send(`http://${name}:${port}/dns`, 'sec', payload);
      assert.equal(r.outcome, 'refused', `${name}: ${JSON.stringify(r)}`);
      assert.ok(r.error!.includes(`${name} resolves to ${addresses.at(-1)}`), r.error);
    }
  } finally {
    await s.close();
  }
  assert.deepEqual(requests, []);
  assert.equal(connections, 0);
});

/** One connection attempt through a connector; answers its error, or null once connected. */
const dial = (connect: buildConnector.connector, hostname: string) => new Promise<Error | null>((resolve) => {
  connect({ hostname, protocol: 'http:', port: String(port) }, (err, socket) => {
    socket?.destroy();
    resolve(err);
  });
});

test('the connector: an address literal is refused without a connection; a peer that turns out private is dropped unwritten', async () => {
  for (const literal of ['::ffff:7f00:1', '127.0.0.1', '::1', '0.0.0.0']) {
    const err = await dial(guardConnect(buildConnector({})), literal);
    assert.match(String(err), new RegExp(`host ${literal.replace(/\./g, '\\.')} is a private, loopback or link-local address`), literal);
  }
  assert.equal(connections, 0, 'no connection was opened for a literal');
  // A resolver that is not the guarded one (e.g. a rebinding answer): the peer itself is judged.
  const rebinding = ((_h: string, o: { all?: boolean }, cb: Function) => (o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4))) as never;
  const err = await dial(guardConnect(buildConnector({ lookup: rebinding })), 'rebind.example');
  assert.match(String(err), /rebind\.example connected to 127\.0\.0\.1, a private, loopback or link-local address \(loopback\)/);
  assert.deepEqual(requests, [], 'nothing was written on that connection');
});
