/**
 * The OpenAPI 3.1 document of the routes a server registers (Router.routes()), described by the
 * operation tables beside this file and the service's TypeBox schemas. A route nobody described
 * still appears, marked `x-undocumented`, so the document never hides what the server answers;
 * test/e2e/openapi.test.ts fails on it. A description whose route the server does not register
 * is left out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { CUSTOMER_OPERATIONS } from './openapi-customer-ops.js';
import { errorResponses, errorStatuses } from './openapi-errors.js';
import { type Answer, type OperationDoc, routeKey } from './openapi-operation.js';
import { componentSchemas, ref } from './openapi-refs.js';
import { SCHEMAS } from './openapi-schemas.js';
import { ADMIN, CONTENT_ENCODING, GZIP, RETRIES, SECURITY_SCHEMES, SIGNED, SIGNING } from './openapi-security.js';
import { SERVICE_OPERATIONS } from './openapi-service-ops.js';
import { EXPLORER_OPERATIONS } from './openapi-explorer-ops.js';
import { BEACON_OPERATIONS } from './openapi-beacon-ops.js';
import { PLACE_OPERATIONS } from './openapi-place-ops.js';
import { WEBHOOKS } from './openapi-webhooks.js';

export interface Route { method: string; pattern: string }

/** Every operation described, by route key. */
export const OPERATIONS: Record<string, OperationDoc> = { ...CUSTOMER_OPERATIONS, ...PLACE_OPERATIONS, ...BEACON_OPERATIONS, ...SERVICE_OPERATIONS, ...EXPLORER_OPERATIONS };

const PATH_PARAMS: Record<string, string> = {
  app_key: "the app's key; must be the signing app's",
  key: 'the app key',
  file: 'a file of the explorer page',
  visit_id: 'a visit id Dwell answered for that user in this app',
};

/** `:id` is named by the collection before it: `…/geofences/:id` is a geofence's. */
const ID_OF: Record<string, string> = {
  geofences: 'the geofence id',
  'place-triggers': 'the place trigger id',
  beacons: 'the beacon id',
  recent: 'the recent detection id (`id` in the list)',
};

/** `/v2/apps/:app_key/x` → `/v2/apps/{app_key}/x`. */
export const openApiPath = (pattern: string) => pattern.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The routes in `routes` that no operation describes. */
export const undocumented = (routes: readonly Route[]) => routes.filter((r) => !OPERATIONS[routeKey(r.method, r.pattern)]);

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, pattern } of routes) {
    const op = OPERATIONS[routeKey(method, pattern)];
    (paths[openApiPath(pattern)] ??= {})[method.toLowerCase()] = op ? operation(op, method, pattern) : placeholder(method, pattern);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dwell API',
      version: packageVersion(),
      summary: 'Venue detection and geofences',
      description: [
        '## Signing', SIGNING, '## Compression', GZIP, '## Errors',
        'Every error is JSON `{"result":"ERROR","error":{"code","message","path"?}}`; a path known with another method answers 405 with `Allow`.',
        '## Retries', RETRIES,
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'Detection', description: 'Venue detection (contract §2)' },
      { name: 'Geofences', description: "An app's geofences (contract §4)" },
      { name: 'Place triggers', description: "An app's place triggers: events at every venue of a brand or a type (contract §11)" },
      { name: 'Beacons', description: "An app's beacon registry (contract §9)" },
      { name: 'Users', description: 'Privacy: erase and export a user (contract §7)' },
      { name: 'Admin', description: 'Apps and their deliveries, behind the admin token (contract §6)' },
      { name: 'Service', description: 'Health, readiness, metrics and this document' },
    ],
    servers: SERVERS,
    paths,
    webhooks: WEBHOOKS,
    components: { schemas: componentSchemas(SCHEMAS), responses: referenced(errorResponses(), paths), securitySchemes: SECURITY_SCHEMES },
  };
}

/** Relative first: a client reads the document from the server it then calls. */
const SERVERS = [
  { url: '/', description: 'the server this document was read from' },
  { url: 'http://localhost:{port}', description: 'a server on this machine', variables: { port: { default: '8080', description: 'PORT' } } },
];

/** Only the error responses some operation refers to (Error405, for one, never is: no operation is asked with a method it lacks). */
function referenced(responses: Record<string, unknown>, paths: unknown): Record<string, unknown> {
  const json = JSON.stringify(paths);
  return Object.fromEntries(Object.entries(responses).filter(([name]) => json.includes(`"#/components/responses/${name}"`)));
}

function operation(op: OperationDoc, method: string, pattern: string): Record<string, unknown> {
  const params: unknown[] = pathParams(pattern);
  for (const q of op.query ?? []) params.push({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: q.schema });
  if (op.body) params.push(CONTENT_ENCODING);
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.answers)) responses[status] = response(answer);
  for (const status of errorStatuses(op, method, pattern)) responses[String(status)] ??= { $ref: `#/components/responses/Error${status}` };
  return {
    operationId: operationId(method, pattern),
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: op.auth === 'signed' ? SIGNED : op.auth === 'admin' || op.auth === 'metrics' ? ADMIN : [],
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? {
      requestBody: {
        required: op.body.required ?? true,
        description: op.body.description ?? (op.auth === 'signed' ? 'JSON, gzipped or not (see Content-Encoding)' : 'JSON'),
        content: { 'application/json': { schema: ref(op.body.schema) }, ...media(op.body.also) },
      },
    } : {}),
    responses,
  };
}

function response(a: Answer): Record<string, unknown> {
  const schema = a.raw ?? (a.schema ? ref(a.schema) : undefined);
  const types = [a.contentType ?? 'application/json', ...(a.alsoAs ?? [])];
  return { description: a.description, ...(schema ? { content: Object.fromEntries(types.map((t) => [t, { schema }])) } : {}) };
}

const media = (also: Record<string, Record<string, unknown>> = {}) => Object.fromEntries(Object.entries(also).map(([t, schema]) => [t, { schema }]));

function placeholder(method: string, pattern: string): Record<string, unknown> {
  return {
    operationId: operationId(method, pattern),
    summary: `UNDOCUMENTED: ${method} ${pattern} has no description in src/docs/openapi-*-ops.ts`,
    'x-undocumented': true,
    ...(pathParams(pattern).length ? { parameters: pathParams(pattern) } : {}),
    responses: { default: { description: 'not described' } },
  };
}

function pathParams(pattern: string): unknown[] {
  return [...pattern.matchAll(/([A-Za-z_-]*)\/:([A-Za-z_]+)/g)].map(([, before, name]) => ({
    name, in: 'path', required: true, description: (name === 'id' ? ID_OF[before] : PATH_PARAMS[name]) ?? name, schema: { type: 'string' },
  }));
}

/** `POST /v2/apps/:app_key/geofences/:id/update` → `post_v2_apps_app_key_geofences_id_update`. */
const operationId = (method: string, pattern: string) => `${method.toLowerCase()}${pattern.replace(/[^A-Za-z0-9]+/g, '_')}`.replace(/_+$/, '');

function packageVersion(): string {
  return JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;
}
