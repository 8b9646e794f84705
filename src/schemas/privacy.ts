/**
 * The user endpoints of contract §7: whom to erase or export, and what comes back. The server
 * builds these answers in src/privacy/; the schemas describe them for the API document and give
 * the client its types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { RecentDetail } from './explorer.js';

const UserId = Type.String({ minLength: 1, description: '1 to 256 characters (code points)' });

/** At least one of the two; `advertising_id` keys a user who sent one, `user_id` one who did not. */
export const UserRef = Type.Object(
  { advertising_id: Type.Optional(UserId), user_id: Type.Optional(UserId) },
  { minProperties: 1, additionalProperties: false, description: 'advertising_id, user_id or both' },
);

export const EraseAnswer = Type.Object({
  result: Type.Literal('SUCCESS'),
  erased: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'what was removed, counted by kind; all 0 for an unknown user' }),
});

export const UserExport = Type.Object({
  user: Type.String(),
  record: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'visit history, stays and open stay; null when nothing is stored' }),
  geofence_presence: Type.Union([
    Type.Object({
      inside_geofences: Type.Array(Type.String()),
      last_change_at: Type.Union([Type.String(), Type.Null()]),
      dwell_counting: Type.Optional(Type.Array(Type.Object({ geofence_id: Type.String(), entered_at: Type.String() }), { description: 'fences with a dwell the user is inside whose dwell event has not fired yet, with the time of entry' })),
    }),
    Type.Null(),
  ]),
  country_presence: Type.Optional(Type.Object({
    country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2 code; null at sea' }),
    last_change_at: Type.String(),
  }, { description: 'apps with region_events: the country of the user\'s last position (contract §11); absent when none is kept' })),
  place_presence: Type.Optional(Type.Object({
    inside: Type.Array(Type.Object({ trigger_id: Type.String(), venue_id: Type.String(), entered_at: Type.String(), dwell_raised: Type.Boolean() })),
    last_change_at: Type.Union([Type.String(), Type.Null()]),
  }, { description: 'apps with place triggers: the venues the user is in, by place trigger (contract §11); absent when none is kept' })),
  triggers: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'triggers of this user not yet delivered, or dead' }),
  recent_detections: Type.Array(RecentDetail, { description: 'requests and answers kept for the explorer, oldest first' }),
});

export const ExportAnswer = Type.Object({ app_key: Type.String(), users: Type.Array(UserExport) });

export type UserRef = Static<typeof UserRef>;
export type EraseAnswer = Static<typeof EraseAnswer>;
export type UserExport = Static<typeof UserExport>;
export type ExportAnswer = Static<typeof ExportAnswer>;
