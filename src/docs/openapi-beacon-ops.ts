/** The beacon registry (contract §9): mirrors the geofence endpoints, plus a bulk import. */
import type { OperationDoc } from './openapi-operation.js';

const BEACONS = '/v2/apps/:app_key/beacons';

export const BEACON_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${BEACONS}/create`]: {
    tag: 'Beacons', auth: 'signed', summary: 'Register a beacon',
    description: 'An iBeacon `uuid`/`major`/`minor` with a `venue_id` of the served store, a `location`, or both. The same `uuid`/`major`/`minor` twice in one app: 409 `conflict`.',
    body: { schema: 'BeaconCreate' },
    answers: { 200: { description: 'The new id', schema: 'BeaconId' } },
    errors: [409],
  },
  [`POST ${BEACONS}/import`]: {
    tag: 'Beacons', auth: 'signed', summary: 'Register or update beacons in bulk',
    description: 'One beacon object a line (`application/x-ndjson`; `application/json` also accepted), gzip allowed, up to 100,000 lines. A line matching an existing `uuid`/`major`/`minor` updates it; bad lines are reported by number and the rest are kept.',
    body: {
      schema: 'BeaconCreate', description: 'one BeaconCreate object a line (NDJSON), or a single one as JSON',
      also: { 'application/x-ndjson': { type: 'string', description: 'newline-delimited JSON: one BeaconCreate object a line' } },
    },
    answers: { 200: { description: 'Counts and the bad lines', schema: 'BeaconImportResult' } },
  },
  [`POST ${BEACONS}/:id/update`]: {
    tag: 'Beacons', auth: 'signed', summary: 'Update a beacon',
    description: 'An absent field keeps its value; `""` or `null` deletes `venue_id`, `location` or `tag` (a beacon keeps a venue or a location).',
    body: { schema: 'BeaconUpdate' },
    answers: { 200: { description: 'The id', schema: 'BeaconId' } },
    errors: [409],
  },
  [`GET ${BEACONS}/:id`]: {
    tag: 'Beacons', auth: 'signed', summary: 'Read a beacon',
    answers: { 200: { description: 'The beacon', schema: 'BeaconRecord' } },
  },
  [`GET ${BEACONS}`]: {
    tag: 'Beacons', auth: 'signed', summary: 'List beacons, a page at a time',
    query: [
      { name: 'tag', description: 'only beacons with this tag', schema: { type: 'string' } },
      { name: 'limit', description: 'page size', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      { name: 'cursor', description: '`next_cursor` of the previous page', schema: { type: 'string' } },
    ],
    answers: { 200: { description: 'One page; `next_cursor` is null on the last', schema: 'BeaconList' } },
  },
  [`POST ${BEACONS}/:id/delete`]: {
    tag: 'Beacons', auth: 'signed', summary: 'Delete a beacon',
    answers: { 200: { description: 'The id', schema: 'BeaconId' } },
  },
};
