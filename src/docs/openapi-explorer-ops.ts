/** The explorer's endpoints (docs/operating.md "Explorer"): its page, and the admin calls behind it. */
import type { OperationDoc } from './openapi-operation.js';

const APP = '/admin/apps/:key';

export const EXPLORER_OPERATIONS: Record<string, OperationDoc> = {
  'GET /ui': {
    tag: 'Service', auth: 'open', summary: 'The explorer page',
    description: 'Holds no data: it asks for the admin token and reads everything through the admin API below.',
    answers: { 200: { description: 'HTML', contentType: 'text/html', raw: { type: 'string' } } },
  },
  'GET /ui/:file': {
    tag: 'Service', auth: 'open', summary: "The explorer page's scripts, styles and the map library",
    answers: { 200: { description: 'A script, a style sheet or the page', contentType: 'text/javascript', alsoAs: ['text/css', 'text/html'], raw: { type: 'string' } } },
    errors: [404],
  },
  'GET /admin/apps': {
    tag: 'Admin', auth: 'admin', summary: 'List every app (never their secrets)',
    answers: { 200: { description: 'Every app', schema: 'AppList' } },
  },
  [`GET ${APP}/recent`]: {
    tag: 'Admin', auth: 'admin', summary: "An app's recent detections, newest first (kept for the explorer; see DWELL_RECENT_COUNT)",
    query: [{ name: 'limit', description: 'at most this many', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } }],
    answers: { 200: { description: 'The recent detections, without their bodies', schema: 'RecentList' } },
  },
  [`GET ${APP}/recent/:id`]: {
    tag: 'Admin', auth: 'admin', summary: 'One recent detection: the request as sent and the answer',
    answers: { 200: { description: 'The detection', schema: 'RecentDetail' } }, errors: [404],
  },
  [`POST ${APP}/explain`]: {
    tag: 'Admin', auth: 'admin', summary: 'Explain a detection: each candidate\'s factors and their contribution to its score',
    description: 'Runs the ranking of `/v1/detect` on the body (gzip allowed) and stores nothing: no history, no learning, no geofence events, no delivery.',
    body: { schema: 'DetectRequest' },
    answers: { 200: { description: '`data` as /v1/detect would answer now, `rankings` parallel to it, `integrity` what its flags rest on', schema: 'Explanation' } },
    errors: [503],
  },
  [`GET ${APP}/geofences`]: {
    tag: 'Admin', auth: 'admin', summary: "An app's geofences, for the explorer's map",
    query: [
      { name: 'limit', description: 'page size', schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 } },
      { name: 'cursor', description: '`next_cursor` of the previous page', schema: { type: 'string' } },
    ],
    answers: { 200: { description: 'One page of the geofences', schema: 'GeofenceList' } },
  },
  [`GET ${APP}/place-triggers`]: {
    tag: 'Admin', auth: 'admin', summary: "An app's place triggers, read-only, for the explorer (at most 100 an app: one page)",
    answers: { 200: { description: 'Every place trigger of the app, in id order', schema: 'PlaceTriggerList' } }, errors: [404],
  },
  'GET /admin/venues': {
    tag: 'Admin', auth: 'admin', summary: 'Search the served venue store by name, category or id, near a point',
    query: [
      { name: 'q', description: 'text to find in a name, a category or an id', schema: { type: 'string' } },
      { name: 'lat', description: 'latitude of the centre', schema: { type: 'number' } },
      { name: 'long', description: 'longitude of the centre', schema: { type: 'number' } },
      { name: 'radius', description: 'metres around the centre', schema: { type: 'number', minimum: 1, maximum: 5000, default: 1000 } },
      { name: 'limit', description: 'at most this many', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
    ],
    answers: { 200: { description: 'The venues found', schema: 'VenueSearch' } },
    errors: [503],
  },
};
