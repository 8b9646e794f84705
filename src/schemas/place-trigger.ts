/**
 * Place triggers (contract §11): the bodies of create and update, and the record as stored and
 * read back. Rules a schema cannot say (at least one of brand and type_id; type_id a type of the
 * taxonomy) live in src/place-triggers/validate.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Metadata } from './metadata.js';

export const PLACE_LIMITS = {
  perApp: 100,
  radiusMin: 10,
  radiusMax: 1000,
  dwellMax: 86_400,
  brandLength: 256,
  tagLength: 256,
  pushTextLength: 2048,
} as const;

const Brand = Type.String({ minLength: 1, maxLength: PLACE_LIMITS.brandLength, description: 'matched against the venue\'s brand without regard to case' });
const TypeId = Type.Integer({ minimum: 1, description: 'a type of the taxonomy (a visit\'s place.type_id); matches it and every type below it' });
const Radius = Type.Number({ minimum: PLACE_LIMITS.radiusMin, maximum: PLACE_LIMITS.radiusMax, description: 'metres; absent or null: each venue\'s own radius' });
const Dwell = Type.Integer({ minimum: 0, maximum: PLACE_LIMITS.dwellMax, description: 'seconds inside before one dwell event; 0: none' });
const Tag = Type.String({ maxLength: PLACE_LIMITS.tagLength });
const PushText = Type.String({ maxLength: PLACE_LIMITS.pushTextLength });
const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/** Create and update take the same fields; update's absent field keeps its value, null or "" clears it. */
export const CreatePlaceTrigger = Type.Object({
  brand: Type.Optional(Type.Union([Brand, Type.Literal(''), Type.Null()])),
  type_id: orNull(TypeId),
  radius: orNull(Radius),
  dwell: orNull(Dwell),
  tag: orNull(Tag),
  push_text: orNull(PushText),
  metadata: orNull(Metadata),
}, { additionalProperties: false, description: 'at least one of brand and type_id' });

export const UpdatePlaceTrigger = Type.Object(CreatePlaceTrigger.properties, {
  additionalProperties: false, description: 'any of the fields: an absent one keeps its value, "" or null clears it',
});

/** As read back (GET), contract §11. */
export const PlaceTriggerRecord = Type.Object({
  id: Type.String(),
  brand: Type.Union([Type.String(), Type.Null()]),
  type_id: Type.Union([Type.Integer(), Type.Null()]),
  radius: Type.Union([Type.Number(), Type.Null()], { description: 'null: each venue\'s own radius' }),
  dwell: Type.Integer(),
  tag: Type.Union([Type.String(), Type.Null()]),
  push_text: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Union([Metadata, Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const PlaceTriggerList = Type.Object({
  place_triggers: Type.Array(PlaceTriggerRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export type PlaceTriggerRecord = Static<typeof PlaceTriggerRecord>;
export type PlaceTriggerList = Static<typeof PlaceTriggerList>;

/** As stored: the record plus its app. */
export type StoredPlaceTrigger = PlaceTriggerRecord & { app_key: string };

/** The fields a create sets, validated: every one present (null when not given). */
export type PlaceTriggerInput = Omit<PlaceTriggerRecord, 'id' | 'created_at' | 'updated_at'>;

/** What update hands the store: an absent key keeps the old value. */
export type PlaceTriggerPatch = Partial<PlaceTriggerInput>;
