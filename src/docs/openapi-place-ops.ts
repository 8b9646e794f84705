/** Place triggers (contract §11): the geofence endpoints' shape, under `/place-triggers/`. */
import type { OperationDoc } from './openapi-operation.js';

const PLACES = '/v2/apps/:app_key/place-triggers';

export const PLACE_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${PLACES}/create`]: {
    tag: 'Place triggers', auth: 'signed', summary: 'Create a place trigger',
    description: 'Raises entry, exit and dwell events at every venue of the served store that has the `brand` (any case) or the taxonomy type `type_id` '
      + '(or a type below it), or both when both are given. `radius` 10 to 1,000 m (absent: each venue\'s own). At most 100 an app: the 101st is 409 `conflict`.',
    body: { schema: 'PlaceTriggerCreate' },
    answers: { 200: { description: 'The new id', schema: 'PlaceTriggerId' } },
    errors: [409],
  },
  [`POST ${PLACES}/:id/update`]: {
    tag: 'Place triggers', auth: 'signed', summary: 'Update a place trigger',
    description: 'An absent field keeps its value; `""` or `null` deletes it (`dwell` back to 0, `radius` back to each venue\'s own); brand and type_id may not both end up empty.',
    body: { schema: 'PlaceTriggerUpdate' },
    answers: { 200: { description: 'The id', schema: 'PlaceTriggerId' } },
  },
  [`GET ${PLACES}/:id`]: {
    tag: 'Place triggers', auth: 'signed', summary: 'Read a place trigger',
    answers: { 200: { description: 'The place trigger', schema: 'PlaceTriggerRecord' } },
  },
  [`GET ${PLACES}`]: {
    tag: 'Place triggers', auth: 'signed', summary: 'List place triggers, a page at a time',
    query: [
      { name: 'limit', description: 'page size', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      { name: 'cursor', description: '`next_cursor` of the previous page', schema: { type: 'string' } },
    ],
    answers: { 200: { description: 'One page in id order; `next_cursor` is null on the last', schema: 'PlaceTriggerList' } },
  },
  [`POST ${PLACES}/:id/delete`]: {
    tag: 'Place triggers', auth: 'signed', summary: 'Delete a place trigger',
    answers: { 200: { description: 'The id', schema: 'PlaceTriggerId' } },
  },
};
