/**
 * The generator on its own: a route nobody described is still in the document, marked, and
 * named by `undocumented` (so the e2e test can fail on it); the document stays valid OpenAPI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPERATIONS, openApiDocument, undocumented } from '../src/docs/openapi.js';
import { renderPage } from '../src/docs/openapi-page.js';
import { SCHEMAS } from '../src/docs/openapi-schemas.js';

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

/** Every schema object in `value`, with where it is. */
function* schemasIn(value: unknown, at = ''): Generator<[string, Record<string, any>]> {
  if (Array.isArray(value)) { for (const [i, v] of value.entries()) yield* schemasIn(v, `${at}/${i}`); return; }
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, any>;
  if (o.type === 'object') yield [at, o];
  for (const [k, v] of Object.entries(o)) yield* schemasIn(v, `${at}/${k}`);
}

test('generators can type every object: none is closed with no properties, every named schema is distinct', () => {
  const doc = openApiDocument(described) as any;
  // {"type":"object","properties":{}} reads as Record<string, never> to generators: an open object says additionalProperties.
  const closedEmpty = [...schemasIn(doc)].filter(([, s]) => !Object.keys(s.properties ?? {}).length && s.additionalProperties === undefined && !s.patternProperties && !s.allOf).map(([at]) => at);
  assert.deepEqual(closedEmpty, []);
  // Named schemas nested elsewhere are found by their JSON as well: two names with one JSON would swap references.
  const byJson = new Map<string, string>();
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const json = JSON.stringify(schema);
    assert.equal(byJson.get(json), undefined, `${name} and ${byJson.get(json)} are the same schema: give one a description`);
    byJson.set(json, name);
  }
  assert.deepEqual(doc.components.schemas.Polygon.properties.polygon.items, { $ref: '#/components/schemas/GeofenceVertex' });
  assert.deepEqual(doc.components.schemas.StructuredRequest.properties.custom_data.additionalProperties, true);
});

test('every request with a body read may answer 413; exactly one of events and data; servers; no unused error response', () => {
  const doc = openApiDocument(described) as any;
  for (const [p, methods] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [m, op] of Object.entries(methods as Record<string, any>)) {
      if (m !== 'get' && op.security.length) assert.ok(op.responses['413'], `${m} ${p} documents 413`);
    }
  }
  assert.deepEqual(doc.components.schemas.DetectRequest.oneOf.map((s: any) => s.$ref), ['#/components/schemas/StructuredRequest', '#/components/schemas/UnstructuredRequest']);
  assert.equal(doc.servers[0].url, '/');
  const json = JSON.stringify(doc.paths);
  for (const name of Object.keys(doc.components.responses)) assert.ok(json.includes(`#/components/responses/${name}`), `${name} is referenced`);
  assert.equal(doc.components.responses.Error405, undefined);
  const idOf = (p: string, m: string) => doc.paths[p][m].parameters.find((x: any) => x.name === 'id').description;
  assert.equal(idOf('/admin/apps/{key}/recent/{id}', 'get'), 'the recent detection id (`id` in the list)');
  assert.equal(idOf('/v2/apps/{app_key}/beacons/{id}', 'get'), 'the beacon id');
  assert.deepEqual(Object.keys(doc.paths['/v2/apps/{app_key}/beacons/import'].post.requestBody.content), ['application/json', 'application/x-ndjson']);
});
