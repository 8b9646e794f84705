/** The customer endpoints (contract §2, §4, §7), as the API document describes them. */
import type { OperationDoc } from './openapi-operation.js';

const FENCES = '/v2/apps/:app_key/geofences';
const USERS = '/v2/apps/:app_key/users';
const userQuery = [
  { name: 'advertising_id', description: 'the user by advertising id', schema: { type: 'string', minLength: 1 } },
  { name: 'user_id', description: 'the user by user id (one who sent no advertising id); one of the two, or both', schema: { type: 'string', minLength: 1 } },
];

export const CUSTOMER_OPERATIONS: Record<string, OperationDoc> = {
  'POST /v1/detect': {
    tag: 'Detection', auth: 'signed', summary: 'Detect the venues of a visit or a stream of signals',
    description: 'Structured (`events`) or unstructured (`data`). Limits: 10 events, 5,000 signals, 200 entries per `wifi_scan`. '
      + 'Rules a schema cannot say: `start_time ≤ end_time`, every signal inside its event, unique `event_id`, a signal carries '
      + 'at least one of `location`, `active_wifi`, `wifi_scan`, `custom_data` ≤ 4 KiB. Geofence events of the location signals '
      + 'are listed in `geofence_events` (sync) or delivered as triggers.',
    body: { schema: 'DetectRequest' },
    answers: {
      200: { description: 'A synchronous app: one element per event in request order (structured), or per visit reported (unstructured)', schema: 'SyncResponse' },
      202: { description: 'A postback or bucket app: every trigger of the request is durably queued', schema: 'DetectAccepted' },
    },
  },
  [`POST ${FENCES}/create`]: {
    tag: 'Geofences', auth: 'signed', summary: 'Create a geofence',
    description: 'A circle (radius 1 to 100,000 m) or a polygon (3 to 1,000 vertices, not self-intersecting); `ttl` seconds, 0 never expires.',
    body: { schema: 'GeofenceCreate' },
    answers: { 200: { description: 'The new id', schema: 'GeofenceId' } },
    errors: [409],
  },
  [`POST ${FENCES}/import`]: {
    tag: 'Geofences', auth: 'signed', summary: 'Create or update geofences in bulk',
    description: 'One geofence object a line (`application/x-ndjson`; `application/json`, a JSON array, also accepted), gzip allowed, up to 100,000 lines '
      + '(more: 413 and nothing imported). A line whose `external_id` names a live geofence updates it (absent fields keep their values); any other line creates. '
      + 'Bad lines are reported by number (from 1, blank lines counted) and the good ones land.',
    body: {
      schema: 'GeofenceCreate', description: 'one GeofenceCreate object a line (NDJSON), or a JSON array of them',
      also: { 'application/x-ndjson': { type: 'string', description: 'newline-delimited JSON: one geofence object a line' } },
    },
    answers: { 200: { description: 'Counts and the bad lines', schema: 'GeofenceImportResult' } },
  },
  [`POST ${FENCES}/:id/update`]: {
    tag: 'Geofences', auth: 'signed', summary: 'Update a geofence',
    description: 'An absent field keeps its value; `""` or `null` deletes `tag` or `push_text`; blank `location` or `ttl` is 400; a `ttl` restarts the clock.',
    body: { schema: 'GeofenceUpdate' },
    answers: { 200: { description: 'The id', schema: 'GeofenceId' } },
    errors: [409],
  },
  [`GET ${FENCES}/:id`]: {
    tag: 'Geofences', auth: 'signed', summary: 'Read a geofence',
    description: 'An expired geofence is gone, whether or not it has been purged yet.',
    answers: { 200: { description: 'The geofence', schema: 'GeofenceRecord' } },
  },
  [`GET ${FENCES}`]: {
    tag: 'Geofences', auth: 'signed', summary: 'List geofences, a page at a time; by external_id; or near a point',
    description: '`external_id`: the one geofence that has it (none: an empty list). `near`: the live geofences whose shape comes within `radius` '
      + 'of the point, nearest first, each with `distance` in metres (0 inside).',
    query: [
      { name: 'tag', description: 'only geofences with this tag', schema: { type: 'string' } },
      { name: 'external_id', description: 'the geofence with this external_id', schema: { type: 'string', minLength: 1, maxLength: 256 } },
      { name: 'near', description: '`<lat>,<long>`: search around this point, nearest first', schema: { type: 'string', pattern: '^-?[0-9.]+,-?[0-9.]+$' } },
      { name: 'radius', description: 'with `near`: metres from the point', schema: { type: 'number', minimum: 1, maximum: 100000, default: 1000 } },
      { name: 'limit', description: 'page size', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      { name: 'cursor', description: '`next_cursor` of the previous page', schema: { type: 'string' } },
    ],
    answers: { 200: { description: 'One page; `next_cursor` is null on the last', schema: 'GeofencePage' } },
  },
  [`POST ${FENCES}/:id/delete`]: {
    tag: 'Geofences', auth: 'signed', summary: 'Delete a geofence',
    answers: { 200: { description: 'The id', schema: 'GeofenceId' } },
  },
  'POST /v2/apps/:app_key/visits/:visit_id/feedback': {
    tag: 'Detection', auth: 'signed', summary: 'Say where the user really was (contract §10)',
    description: '`confirm` the answered place, name the right one (`wrong_venue` with `venue_id`, a venue of the served store), or say it was `not_a_stop`. '
      + 'The visit id must be one answered to this user in this app, among their latest answered visits: any other is 404. Feedback again on the same visit replaces the earlier one. '
      + "The venue becomes certain in the user's history (first/last visit times, later stays there) and teaches the app's learned tables; answers already given do not change.",
    body: { schema: 'VisitFeedback' },
    answers: { 200: { description: 'Taken', schema: 'FeedbackAnswer' } },
  },
  [`POST ${USERS}/erase`]: {
    tag: 'Users', auth: 'signed', summary: "Erase a user's data in this app",
    description: 'Visit history, open stays, geofence presence, and triggers not yet delivered or dead. Idempotent: an unknown user answers zero counts.',
    body: { schema: 'UserRef' },
    answers: { 200: { description: 'What was removed', schema: 'EraseAnswer' } },
  },
  [`GET ${USERS}/export`]: {
    tag: 'Users', auth: 'signed', summary: 'Everything stored for a user in this app (right of access)',
    query: userQuery,
    answers: { 200: { description: "The user's data", schema: 'ExportAnswer' } },
  },
};
