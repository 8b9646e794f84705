/**
 * The API document (issue 18 item 1), read from a live server: valid OpenAPI 3.1 by a maintained
 * validator, every route the server registers described (none marked undocumented), every
 * description a route the server answers, the same document the build wrote, and the page.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPERATIONS } from '../../src/docs/openapi.js';
import { dwellWithApp } from '../helpers/dwell.js';
import { ROOT } from '../helpers/server.js';

type Obj = Record<string, any>;

let doc: Obj;
const operations: Array<{ method: string; path: string; op: Obj }> = [];

const server = dwellWithApp({}, { setUp: async (server) => {
  const res = await fetch(server.url + '/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  doc = (await res.json()) as Obj;
  for (const [p, methods] of Object.entries(doc.paths as Obj)) {
    for (const [method, op] of Object.entries(methods as Obj)) operations.push({ method: method.toUpperCase(), path: p, op });
  }
} });

test('GET /openapi.json is valid OpenAPI 3.1 and every $ref resolves', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, '3.1');
  assert.doesNotThrow(() => validator.resolveRefs());
});

test('every route the server registers is described: none is marked undocumented', () => {
  const missing = operations.filter((o) => o.op['x-undocumented']).map((o) => `${o.method} ${o.path}`);
  assert.deepEqual(missing, [], `routes without a description: add them to src/docs/openapi-customer-ops.ts or openapi-service-ops.ts:\n  ${missing.join('\n  ')}`);
});

test('every description is of a route the server registers', () => {
  const served = new Set(operations.map((o) => `${o.method} ${o.path}`));
  const stale = Object.keys(OPERATIONS).map((k) => k.replace(/:([A-Za-z_]+)/g, '{$1}')).filter((k) => !served.has(k));
  assert.deepEqual(stale, [], `described but not registered by the server:\n  ${stale.join('\n  ')}`);
});

test('the server answers every operation of the document, with a status the document lists', async () => {
  for (const { method, path: p, op } of operations) {
    const url = server.url + p.replace(/\{[^}]+\}/g, 'x');
    const res = await fetch(url, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }) });
    const text = await res.text();
    // Unsigned: signed and admin routes answer 401, open ones answer; none is the router's 404 or 405.
    assert.ok(res.status !== 405 && !text.includes('no route for'), `${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    assert.ok(String(res.status) in op.responses, `${method} ${p} answered ${res.status}, the document lists ${Object.keys(op.responses)}`);
  }
  assert.ok(operations.length >= 20, `${operations.length} operations`);
});

test('the document is the one the build wrote (dist/openapi.json), signing and gzip described', () => {
  const built = JSON.parse(readFileSync(path.join(ROOT, 'dist/openapi.json'), 'utf8'));
  assert.deepEqual(doc, built);
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['adminToken', 'appKey', 'signature', 'timestamp']);
  assert.match(doc.info.description, /HMAC-SHA256\(app_secret, string_to_sign\)/);
  assert.match(doc.info.description, /Content-Encoding: gzip/);
  const detect = doc.paths['/v1/detect'].post;
  assert.deepEqual(detect.security, [{ appKey: [], timestamp: [], signature: [] }]);
  assert.ok(detect.parameters.some((p: Obj) => p.name === 'Content-Encoding' && p.in === 'header'));
  assert.deepEqual(Object.keys(detect.responses).filter((s) => s < '300'), ['200', '202']);
  const e400 = doc.components.responses.Error400.content['application/json'].schema;
  assert.deepEqual(e400.properties.error.properties.code.anyOf.map((c: Obj) => c.const), ['invalid_request', 'invalid_json', 'invalid_gzip']);
  assert.ok(doc.webhooks.trigger.post, 'the postback is described as a webhook');
});

test('GET /docs is one self-contained page with every operation', async () => {
  const res = await fetch(server.url + '/docs');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  for (const { op } of operations) assert.ok(html.includes(`id="${op.operationId}"`), `${op.operationId} on the page`);
  assert.doesNotMatch(html, /<script|<link|<img|src=|@import|url\(/i, 'nothing loaded from elsewhere');
  assert.ok(Buffer.byteLength(html) < 200_000, `${Buffer.byteLength(html)} bytes`);
});
