/** The explorer's endpoints (README "Explorer"): its page, and the admin calls behind it. */
import type { OperationDoc } from './openapi-operation.js';

const APP = '/admin/apps/:key';
const OBJECT = { type: 'object' };

export const EXPLORER_OPERATIONS: Record<string, OperationDoc> = {
  'GET /ui': {
    tag: 'Service', auth: 'open', summary: 'The explorer page',
    description: 'Holds no data: it asks for the admin token and reads everything through the admin API below.',
    answers: { 200: { description: 'HTML', contentType: 'text/html', raw: { type: 'string' } } },
  },
  'GET /ui/:file': {
    tag: 'Service', auth: 'open', summary: "The explorer page's scripts, styles and the map library",
    answers: { 200: { description: 'A static file', contentType: 'application/octet-stream', raw: { type: 'string' } } },
    errors: [404],
  },
  'GET /admin/apps': {
    tag: 'Admin', auth: 'admin', summary: 'List every app (never their secrets)',
    answers: { 200: { description: '`{apps: [...]}`', raw: OBJECT } },
  },
  [`GET ${APP}/recent`]: {
    tag: 'Admin', auth: 'admin', summary: "An app's recent detections, newest first (kept for the explorer; see DWELL_RECENT_COUNT)",
    query: [{ name: 'limit', description: 'at most this many', schema: { type: 'integer', minimum: 1 } }],
    answers: { 200: { description: 'The recent detections, without their bodies', raw: OBJECT } },
  },
  [`GET ${APP}/recent/:id`]: {
    tag: 'Admin', auth: 'admin', summary: 'One recent detection: the request as sent and the answer',
    answers: { 200: { description: 'The detection', raw: OBJECT } }, errors: [404],
  },
  [`POST ${APP}/explain`]: {
    tag: 'Admin', auth: 'admin', summary: 'Explain a detection: each candidate\'s factors and their contribution to its score',
    description: 'Runs the ranking of `/v1/detect` on the body (gzip allowed) and stores nothing: no history, no learning, no geofence events, no delivery.',
    body: { schema: 'DetectRequest' },
    answers: { 200: { description: '`{app_key, kind, data, rankings}`: `data` as /v1/detect would answer now, `rankings` parallel to it', raw: OBJECT } },
    errors: [400, 413],
  },
  [`GET ${APP}/geofences`]: {
    tag: 'Admin', auth: 'admin', summary: "An app's geofences, for the explorer's map",
    answers: { 200: { description: 'The geofences', raw: OBJECT } },
  },
  'GET /admin/venues': {
    tag: 'Admin', auth: 'admin', summary: 'Search the served venue store by name, category or id, near a point',
    query: [
      { name: 'q', description: 'text to find in a name, a category or an id', schema: { type: 'string' } },
      { name: 'lat', description: 'latitude of the centre', schema: { type: 'number' } },
      { name: 'long', description: 'longitude of the centre', schema: { type: 'number' } },
      { name: 'radius', description: 'metres around the centre', schema: { type: 'number' } },
      { name: 'limit', description: 'at most this many', schema: { type: 'integer', minimum: 1 } },
    ],
    answers: { 200: { description: 'The venues found', raw: OBJECT } },
  },
};
