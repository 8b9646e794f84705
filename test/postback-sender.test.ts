/** The HTTP sender against a real receiver on loopback: outcomes, timeout, refused targets. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PostbackSender } from '../src/delivery/postback/sender.js';
import { verifyPostback } from '../src/index.js';
import type { Trigger } from '../src/schemas/visit.js';

const trigger = { data: { id: 'tr_x', request_id: 'r', user_info: { user_id: null, device_id: null, app_key: 'ak', custom_data: null } }, result: 'SUCCESS' } as Trigger;
const payload = { id: trigger.data.id, body: Buffer.from(JSON.stringify(trigger)) };
const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
let status = 200;
let hang = false;
let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (!hang) res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('a 2xx is success; the request is signed and carries the trigger id', async () => {
  const s = new PostbackSender({ allowPrivate: true });
  try {
    assert.deepEqual(await s.send(base + '/hook?x=1', 'sec', payload), { outcome: 'success' });
    const got = seen.at(-1)!;
    assert.equal(got.headers['x-trigger-id'], 'tr_x');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(got.body), trigger);
    assert.equal(verifyPostback('sec', got.url, got.body), true);
    status = 204;
    assert.equal((await s.send(base + '/hook', 'sec', payload)).outcome, 'success');
    status = 503;
    assert.deepEqual(await s.send(base + '/hook', 'sec', payload), { outcome: 'http_error', error: 'expected a 2xx answer, got HTTP 503' });
    status = 302;
    assert.equal((await s.send(base + '/hook', 'sec', payload)).outcome, 'http_error', 'redirects are not followed');
  } finally {
    status = 200;
    await s.close();
  }
});

test('no answer within the timeout is a timeout; nobody listening is a network error', async () => {
  const s = new PostbackSender({ allowPrivate: true, timeoutMs: 300 });
  try {
    hang = true;
    assert.deepEqual(await s.send(base + '/hook', 'sec', payload), { outcome: 'timeout', error: 'no 2xx answer within 0.3 s' });
    hang = false;
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await s.send(`http://127.0.0.1:${port}/hook`, 'sec', payload);
    assert.equal(r.outcome, 'network_error');
    assert.match(r.error!, /ECONNREFUSED/);
  } finally {
    hang = false;
    await s.close();
  }
});

test('refused: other schemes, and private, loopback or link-local hosts unless allowed, also by DNS', async () => {
  const fakeDns = (host: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: Array<{ address: string; family: number }>) => void) =>
    cb(null, host === 'inside.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }]);
  const s = new PostbackSender({ allowPrivate: false, timeoutMs: 2000, resolve: fakeDns });
  try {
    const port = new URL(base).port;
    for (const [url, why] of [
      ['ftp://hooks.example/x', /must be http or https, got ftp:/],
      ['not a url', /not a URL/],
      [`http://127.0.0.1:${port}/hook`, /127\.0\.0\.1 is a private, loopback or link-local address/],
      ['http://[::1]/x', /private, loopback or link-local/],
      ['http://10.0.0.7/x', /private/],
      ['http://localhost/x', /localhost is a private/],
      [`http://inside.example:${port}/hook`, /inside\.example resolves to 127\.0\.0\.1/],
      ['http://metadata.example/x', /resolves to 169\.254\.169\.254/],
    ] as const) {
      const r = await s.send(url, 'sec', payload);
      assert.equal(r.outcome, 'refused', url);
      assert.match(r.error!, why, url);
    }
  } finally {
    await s.close();
  }
});
