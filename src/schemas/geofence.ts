/**
 * Geofences (interface 2.9, contract §4): the bodies of create and update, the location shapes
 * and the record as stored and as read back. Geometry rules a schema cannot say (no
 * self-intersection, no ring around a pole) live in src/geofences/geometry.ts.
 */
import { Type, type Static } from '@sinclair/typebox';

export const LIMITS = {
  radiusMin: 1,
  radiusMax: 100_000,
  verticesMin: 3,
  verticesMax: 1000,
  ttlMax: 315_360_000,
  tagLength: 256,
  pushTextLength: 2048,
} as const;

const Lat = Type.Number({ minimum: -90, maximum: 90 });
const Long = Type.Number({ minimum: -180, maximum: 180 });

export const Circle = Type.Object({
  lat: Lat,
  long: Long,
  radius: Type.Number({ minimum: LIMITS.radiusMin, maximum: LIMITS.radiusMax }),
});

export const Vertex = Type.Object({ lat: Lat, long: Long }, { description: 'a vertex of the polygon' });

export const Polygon = Type.Object({
  polygon: Type.Array(Vertex, { minItems: LIMITS.verticesMin, maxItems: LIMITS.verticesMax }),
});

export const Location = Type.Union([Circle, Polygon]);

export const Ttl = Type.Integer({ minimum: 0, maximum: LIMITS.ttlMax });
const Tag = Type.String({ maxLength: LIMITS.tagLength });
const PushText = Type.String({ maxLength: LIMITS.pushTextLength });

/** `location` is checked on its own (circle or polygon by its keys) for errors that name the field. */
export const CreateGeofence = Type.Object({
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
  location: Type.Unknown(),
  ttl: Ttl,
  push_text: Type.Optional(Type.Union([PushText, Type.Null()])),
});

/** Every field optional; blank `location` and `ttl` are refused by the validator, not the schema. */
export const UpdateGeofence = Type.Object({
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
  location: Type.Optional(Type.Unknown()),
  ttl: Type.Optional(Type.Unknown()),
  push_text: Type.Optional(Type.Union([PushText, Type.Null()])),
});

/** As read back (GET), contract §4. */
export const GeofenceRecord = Type.Object({
  id: Type.String(),
  tag: Type.Union([Type.String(), Type.Null()]),
  location: Location,
  ttl: Ttl,
  push_text: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
});

export const GeofenceList = Type.Object({
  geofences: Type.Array(GeofenceRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export type Circle = Static<typeof Circle>;
export type Polygon = Static<typeof Polygon>;
export type Location = Static<typeof Location>;
export type GeofenceRecord = Static<typeof GeofenceRecord>;
export type GeofenceList = Static<typeof GeofenceList>;

/** As stored: the record plus its app. */
export type StoredGeofence = GeofenceRecord & { app_key: string };

/** What create hands the store, validated. */
export interface GeofenceInput { tag: string | null; location: Location; ttl: number; push_text: string | null }

/** What update hands the store: an absent key keeps the old value, null deletes it. */
export interface GeofencePatch { tag?: string | null; location?: Location; ttl?: number; push_text?: string | null }
