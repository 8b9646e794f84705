/**
 * The response check of the e2e helpers (test/helpers/openapi-check.ts) on its own: a real answer
 * passes, and an answer the document cannot describe (a status it does not list, another media
 * type, a body its schema refuses, a path it lacks) fails naming the operation and why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dwellWithApp } from '../helpers/dwell.js';
import { checkResponse } from '../helpers/openapi-check.js';

const dwell = dwellWithApp();

const json = { 'content-type': 'application/json' };
const received = (status: number, body: unknown, headers: Record<string, string> = json) =>
  ({ status, headers: new Headers(headers), text: typeof body === 'string' ? body : JSON.stringify(body) });

test('a real answer passes', async () => {
  const res = await fetch(dwell.url + '/healthz');
  await checkResponse(dwell.url, 'GET', '/healthz', { status: res.status, headers: res.headers, text: await res.text() });
  const nowhere = await fetch(dwell.url + '/nowhere');
  await checkResponse(dwell.url, 'GET', '/nowhere', { status: nowhere.status, headers: nowhere.headers, text: await nowhere.text() });
});

test('an answer the document cannot describe fails by name', async () => {
  const err = { result: 'ERROR', error: { code: 'not_found', message: 'x' } };
  await assert.rejects(checkResponse(dwell.url, 'GET', '/healthz', received(418, {})), /GET \/healthz answered 418 .*status 418 is not among 200, 500/);
  await assert.rejects(checkResponse(dwell.url, 'GET', '/healthz', received(200, 'ok', { 'content-type': 'text/plain' })), /GET \/healthz .*media type "text\/plain" is not among application\/json/);
  await assert.rejects(checkResponse(dwell.url, 'GET', '/healthz', received(200, { status: 'fine' })), /GET \/healthz .*body \/status must be equal to constant/);
  await assert.rejects(checkResponse(dwell.url, 'POST', '/v2/apps/ak_x/geofences/create', received(200, 7)),
    /POST \/v2\/apps\/\{app_key\}\/geofences\/create answered 200 .*body \/ must be string/);
  await assert.rejects(checkResponse(dwell.url, 'GET', '/v2/apps/ak_x/geofences?limit=2', received(400, { result: 'ERROR', error: { code: 'conflict', message: 'x' } })),
    /GET \/v2\/apps\/\{app_key\}\/geofences .*body \/error\/code must be equal to constant/);
  await assert.rejects(checkResponse(dwell.url, 'GET', '/elsewhere', received(200, {})), /GET \/elsewhere answered 200 .*expected the router's 404/);
  await assert.rejects(checkResponse(dwell.url, 'PUT', '/healthz', received(404, err)), /PUT \/healthz answered 404 .*expected the router's 405/);
});
