/**
 * The generator on its own: a route nobody described is still in the document, marked, and
 * named by `undocumented` (so the e2e test can fail on it); the document stays valid OpenAPI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPERATIONS, openApiDocument, undocumented } from '../src/docs/openapi.js';
import { renderPage } from '../src/docs/openapi-page.js';

const described = Object.keys(OPERATIONS).map((k) => ({ method: k.split(' ')[0], pattern: k.split(' ')[1] }));
const extra = { method: 'POST', pattern: '/v2/apps/:app_key/widgets/:id/frob' };

test('a route without a description is kept, marked x-undocumented, and reported', async () => {
  const doc = openApiDocument([...described, extra]) as any;
  const op = doc.paths['/v2/apps/{app_key}/widgets/{id}/frob'].post;
  assert.equal(op['x-undocumented'], true);
  assert.match(op.summary, /^UNDOCUMENTED/);
  assert.deepEqual(undocumented([...described, extra]), [extra]);
  assert.deepEqual(undocumented(described), []);
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.match(renderPage(doc), /Not documented/);
});

test('a description without a route is left out', () => {
  const doc = openApiDocument(described.filter((r) => r.pattern !== '/docs')) as any;
  assert.equal(doc.paths['/docs'], undefined);
  assert.ok(doc.paths['/openapi.json'].get);
});

test('named schemas nested in others are references, not copies', () => {
  const doc = openApiDocument(described) as any;
  const s = doc.components.schemas;
  assert.deepEqual(s.SyncItem.properties.visit, { $ref: '#/components/schemas/Visit' });
  assert.deepEqual(s.Place.properties.venue_info, { $ref: '#/components/schemas/VenueInfo' }, 'Type.Optional(VenueInfo) too');
  assert.deepEqual(s.GeofenceRecord.properties.location, { $ref: '#/components/schemas/GeofenceLocation' });
  assert.equal(JSON.stringify(doc).includes('"Kind"'), false);
});
