/**
 * Contract §5 as amended (issue 30): a wrong admin token is 401 `invalid_token`; the admin API
 * and the explorer's admin calls take bodies by the customer endpoints' rules (Content-Encoding
 * gzip or identity, Content-Type application/json or none, else 415 before the body is read); a
 * body that is not a JSON object is 400 `invalid_json` saying what arrived.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { dwellWithApp } from '../helpers/dwell.js';
import { admin } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const dwell = dwellWithApp();

const codeOf = (r: { status: number; body: any }) => [r.status, r.body?.error?.code];

test('a wrong admin token is 401 invalid_token, on the admin API, the explorer calls and /metrics', async () => {
  const wrong = { authorization: 'Bearer not-the-token' };
  for (const [method, p] of [['GET', `/admin/apps/${dwell.app.app_key}`], ['GET', '/admin/apps'], ['POST', `/admin/apps/${dwell.app.app_key}/rotate-secret`], ['GET', '/metrics']]) {
    const r = await admin(dwell.url, p, { method, headers: wrong });
    assert.deepEqual(codeOf(r), [401, 'invalid_token'], `${method} ${p}`);
    assert.equal(r.body.error.message, 'the admin token is not valid');
  }
  assert.deepEqual(codeOf(await admin(dwell.url, '/admin/apps', { headers: { authorization: '' } })), [401, 'missing_auth'], 'no token at all is still missing_auth');
});

test('admin bodies: another Content-Encoding or Content-Type is 415; gzip is inflated', async () => {
  const body = JSON.stringify({ name: 'zipped', delivery: { method: 'sync' } });
  const br = await admin(dwell.url, '/admin/apps', { body, headers: { 'content-encoding': 'br' } });
  assert.deepEqual(codeOf(br), [415, 'unsupported_media_type']);
  assert.match(br.body.error.message, /Content-Encoding is gzip or absent, got "br"/);
  const text = await admin(dwell.url, '/admin/apps', { body, headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(codeOf(text), [415, 'unsupported_media_type']);
  const patch = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}`, { method: 'PATCH', body: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(codeOf(patch), [415, 'unsupported_media_type']);
  const del = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}`, { method: 'DELETE', body: '{}', headers: { 'content-encoding': 'br' } });
  assert.deepEqual(codeOf(del), [415, 'unsupported_media_type'], 'refused before anything is deleted');
  assert.equal((await admin(dwell.url, `/admin/apps/${dwell.app.app_key}`)).status, 200);
  const explain = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}/explain`, { body: JSON.stringify(visitRequest()), headers: { 'content-type': 'text/plain' } });
  assert.deepEqual(codeOf(explain), [415, 'unsupported_media_type']);

  const zipped = await admin(dwell.url, '/admin/apps', { body: gzipSync(body), headers: { 'content-encoding': 'gzip' } });
  assert.equal(zipped.status, 201, JSON.stringify(zipped.body));
  assert.equal(zipped.body.name, 'zipped');
  const bad = await admin(dwell.url, '/admin/apps', { body: Buffer.from(body), headers: { 'content-encoding': 'gzip' } });
  assert.deepEqual(codeOf(bad), [400, 'invalid_gzip']);
});

test('a body that is not a JSON object is 400 invalid_json saying what arrived', async () => {
  for (const [raw, got] of [['null', 'null'], ['[1,2]', 'an array'], ['42', 'a number (42)']]) {
    const r = await admin(dwell.url, '/admin/apps', { body: raw });
    assert.deepEqual([...codeOf(r), r.body.error.message], [400, 'invalid_json', `expected a JSON object, got ${got}`], raw);
  }
  const explain = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}/explain`, { body: 'null' });
  assert.deepEqual([...codeOf(explain), explain.body.error.message], [400, 'invalid_json', 'expected a JSON object, got null']);
});

test('a field that is one of several values says which, and what arrived', async () => {
  const r = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}`, { method: 'PATCH', body: { integrity: 'bogus' } });
  assert.deepEqual([...codeOf(r), r.body.error.path, r.body.error.message], [400, 'invalid_request', '/integrity', '/integrity: expected "flag", or "drop", got "bogus"']);
  const events = await admin(dwell.url, `/admin/apps/${dwell.app.app_key}`, { method: 'PATCH', body: { delivery: { method: 'sync', events: ['visit', 'nope'] } } });
  assert.deepEqual([events.status, events.body.error.path], [400, '/delivery/events/1']);
  assert.match(events.body.error.message, /expected "visit", or "transit", or "geofence", or "place", or "region", got "nope"$/);
});
