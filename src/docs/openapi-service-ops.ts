/** The operator's endpoints (contract §6, §7): the admin API, health, readiness, metrics, and this document. */
import type { OperationDoc } from './openapi-operation.js';

const APP = '/admin/apps/:key';

export const SERVICE_OPERATIONS: Record<string, OperationDoc> = {
  'POST /admin/apps': {
    tag: 'Admin', auth: 'admin', summary: 'Create an app', body: { schema: 'CreateApp' },
    description: 'The secret is shown in this answer only. A postback URL on a private address is refused unless DWELL_POSTBACK_ALLOW_PRIVATE.',
    answers: { 201: { description: 'The app, with its secret', schema: 'AppCreated' } },
  },
  [`GET ${APP}`]: {
    tag: 'Admin', auth: 'admin', summary: 'Read an app (never its secret)',
    answers: { 200: { description: 'The app', schema: 'App' } },
  },
  [`PATCH ${APP}`]: {
    tag: 'Admin', auth: 'admin', summary: "Change an app's name, delivery or confirmation dwell", body: { schema: 'UpdateApp' },
    answers: { 200: { description: 'The app', schema: 'App' } },
  },
  [`POST ${APP}/rotate-secret`]: {
    tag: 'Admin', auth: 'admin', summary: 'Issue a new secret',
    description: 'The old secret keeps working for the grace period (24 h by default).',
    answers: { 200: { description: 'The new secret', schema: 'RotatedSecret' } },
  },
  [`GET ${APP}/deliveries`]: {
    tag: 'Admin', auth: 'admin', summary: "List an app's pending or dead triggers",
    query: [{ name: 'status', description: 'which triggers', schema: { type: 'string', enum: ['pending', 'dead'], default: 'pending' } }],
    answers: { 200: { description: 'The triggers and their delivery state', schema: 'Deliveries' } },
  },
  [`POST ${APP}/deliveries/replay`]: {
    tag: 'Admin', auth: 'admin', summary: "Requeue an app's dead triggers",
    answers: { 200: { description: 'How many were requeued', schema: 'Replayed' } },
  },
  [`DELETE ${APP}`]: {
    tag: 'Admin', auth: 'admin', summary: 'Delete an app and everything stored for it',
    description: 'Its key then answers 401 `unknown_app`.',
    answers: { 200: { description: 'What was removed', schema: 'AppDeleted' } },
  },
  'POST /admin/clock': {
    tag: 'Admin', auth: 'admin', summary: "Move the server's time forward (tests only)", body: { schema: 'AdvanceClock' },
    description: 'For tests of TTLs, expiry, retention and backoff without waiting: every thread of the server reads the moved time, and the sweeps and the delivery queue look again at once. Answers 403 `forbidden` unless the server was started with DWELL_TEST_CLOCK=1, which is never set in production. Time only moves forward.',
    answers: { 200: { description: "The server's time after the move", schema: 'ClockTime' } }, errors: [403],
  },
  'GET /healthz': {
    tag: 'Service', auth: 'open', summary: 'Alive', answers: { 200: { description: 'The process answers', schema: 'Health' } },
  },
  'GET /readyz': {
    tag: 'Service', auth: 'open', summary: 'Ready to serve', description: 'The venue store is open and the queues run; 503 (with Retry-After) until then.', errors: [503],
    answers: { 200: { description: 'Ready', schema: 'Readiness' } },
  },
  'GET /metrics': {
    tag: 'Service', auth: 'metrics', summary: 'Prometheus metrics',
    description: 'Requests by route and status, latencies, detections, queue depths, deliveries, process metrics. Its labels name apps, so on the public port it needs the admin token (401 without); DWELL_METRICS_PORT opens an internal listener that serves it without one.',
    answers: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain', raw: { type: 'string' } } },
  },
  'GET /openapi.json': {
    tag: 'Service', auth: 'open', summary: 'This document (OpenAPI 3.1)',
    answers: { 200: { description: 'The API description', raw: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' } }, additionalProperties: true } } },
  },
  'GET /docs': {
    tag: 'Service', auth: 'open', summary: 'This document as a page to read',
    answers: { 200: { description: 'Self-contained HTML', contentType: 'text/html', raw: { type: 'string' } } },
  },
};
