/** Contract §3's signature, and the customers' helper that checks it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { verifyPostback } from '../src/index.js';
import { postbackRequest, signedPathTemplate, signPostback } from '../src/delivery/postback/sign.js';
import type { Trigger } from '../src/schemas/visit.js';

const secret = 'a'.repeat(64);
const now = Date.UTC(2024, 4, 6, 12, 0, 0);
const trigger = {
  data: { id: 'tr_1', request_id: 'req-1', event_id: 'ev-1', user_info: { user_id: 'u', device_id: 'd', app_key: 'ak_1', custom_data: null } },
  result: 'SUCCESS',
} as Trigger;
const payload = { id: trigger.data.id, body: Buffer.from(JSON.stringify(trigger)) };

test('the signature is lowercase hex HMAC-SHA256(secret, "<timestamp>.<raw body>")', () => {
  const body = '{"a":1}';
  const expected = createHmac('sha256', secret).update(`1715000000.${body}`).digest('hex');
  assert.equal(signPostback(secret, 1715000000, body), expected);
  assert.equal(signPostback(secret, '1715000000', Buffer.from(body)), expected);
  assert.match(expected, /^[0-9a-f]{64}$/);
});

test('the request: query parameters, headers, body; the customer\'s own query is kept', () => {
  const req = postbackRequest(new URL('https://hooks.example.com/dwell?source=x&signature=old'), secret, payload, now);
  const url = new URL(req.url);
  assert.equal(url.searchParams.get('source'), 'x');
  assert.equal(url.searchParams.get('timestamp'), String(now / 1000));
  assert.equal(url.searchParams.getAll('signature').length, 1);
  assert.equal(req.body.toString(), JSON.stringify(trigger), 'the stored bytes, as they are');
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers['x-trigger-id'], 'tr_1');
  assert.equal(verifyPostback(secret, url.searchParams, req.body, 300, now), true);
});

test('the sender\'s URL template gives exactly the URL postbackRequest builds', () => {
  for (const raw of [
    'https://hooks.example.com/dwell', 'https://hooks.example.com/dwell?source=x&signature=old', 'http://h.example:8080/a%20b/c?q=a+b&x=%2F&timestamp=1',
    'https://h.example/p?signature=s&a=1&timestamp=t&signature=again', 'https://h.example/?', 'https://h.example/p#frag',
  ]) {
    const target = new URL(raw);
    const path = signedPathTemplate(target)!;
    const ts = Math.floor(now / 1000);
    const url = new URL(postbackRequest(target, secret, payload, now).url);
    assert.equal(path(ts, signPostback(secret, ts, payload.body)), url.pathname + url.search, raw);
  }
});

test('verifyPostback accepts every form of query a receiver may hold', () => {
  const { url, body } = postbackRequest(new URL('https://h.example/p'), secret, payload, now);
  const u = new URL(url);
  assert.equal(verifyPostback(secret, u.searchParams, body, 300, now), true, 'URLSearchParams');
  assert.equal(verifyPostback(secret, u.search, body, 300, now), true, '"?timestamp=…"');
  assert.equal(verifyPostback(secret, u.search.slice(1), body, 300, now), true, '"timestamp=…"');
  assert.equal(verifyPostback(secret, u.pathname + u.search, body, 300, now), true, 'req.url');
  assert.equal(verifyPostback(secret, Object.fromEntries(u.searchParams), body, 300, now), true, 'req.query');
  assert.equal(verifyPostback(secret, Object.fromEntries(u.searchParams), Buffer.from(body), 300, now), true, 'Buffer body');
  assert.equal(verifyPostback(['b'.repeat(64), secret], u.searchParams, body, 300, now), true, 'old and new secret');
});

test('verifyPostback refuses forgeries, other secrets, stale or missing parameters', () => {
  const { url, body } = postbackRequest(new URL('https://h.example/p'), secret, payload, now);
  const q = new URL(url).searchParams;
  assert.equal(verifyPostback('b'.repeat(64), q, body, 300, now), false, 'other secret');
  assert.equal(verifyPostback(secret, q, body.toString().replace('req-1', 'req-2'), 300, now), false, 'body changed');
  assert.equal(verifyPostback(secret, q, body, 300, now + 301_000), false, 'too old');
  assert.equal(verifyPostback(secret, q, body, 300, now - 301_000), false, 'from the future');
  assert.equal(verifyPostback(secret, q, body, 600, now + 301_000), true, 'a wider tolerance');
  const bad = (mutate: (p: URLSearchParams) => void) => {
    const p = new URLSearchParams(q);
    mutate(p);
    return verifyPostback(secret, p, body, 300, now);
  };
  assert.equal(bad((p) => p.delete('signature')), false);
  assert.equal(bad((p) => p.delete('timestamp')), false);
  assert.equal(bad((p) => p.set('signature', q.get('signature')!.slice(2))), false, 'short signature');
  assert.equal(bad((p) => p.set('signature', 'zz' + q.get('signature')!.slice(2))), false, 'not hex');
  assert.equal(bad((p) => p.set('timestamp', String(now / 1000 + 1))), false, 'timestamp changed');
  assert.equal(bad((p) => p.set('timestamp', `${now / 1000}.0`)), false, 'timestamp not an integer');
});
