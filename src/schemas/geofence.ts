/**
 * Geofences (interface 2.9, contract §4): the bodies of create and update, the location shapes
 * and the record as stored and as read back. Geometry rules a schema cannot say (no
 * self-intersection, no ring around a pole) live in src/geofences/geometry.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Metadata } from './metadata.js';

export const LIMITS = {
  radiusMin: 1,
  radiusMax: 100_000,
  verticesMin: 3,
  verticesMax: 1000,
  ttlMax: 315_360_000,
  tagLength: 256,
  pushTextLength: 2048,
  dwellMax: 86_400,
  externalIdLength: 256,
  importLines: 100_000,
  nearRadiusDefault: 1000,
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
export const Dwell = Type.Integer({ minimum: 0, maximum: LIMITS.dwellMax, description: 'seconds inside before a dwell event (0: none)' });
export const ExternalId = Type.String({ minLength: 1, maxLength: LIMITS.externalIdLength, description: 'your id for the geofence, unique within the app' });

/** `location` is checked on its own (circle or polygon by its keys) for errors that name the field. */
export const CreateGeofence = Type.Object({
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
  location: Type.Unknown(),
  ttl: Ttl,
  push_text: Type.Optional(Type.Union([PushText, Type.Null()])),
  dwell: Type.Optional(Dwell),
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
  external_id: Type.Optional(Type.Union([ExternalId, Type.Null()])),
});

/** Every field optional; blank `location` and `ttl` are refused by the validator, not the schema. */
export const UpdateGeofence = Type.Object({
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
  location: Type.Optional(Type.Unknown()),
  ttl: Type.Optional(Type.Unknown()),
  push_text: Type.Optional(Type.Union([PushText, Type.Null()])),
  dwell: Type.Optional(Dwell),
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
  external_id: Type.Optional(Type.Union([ExternalId, Type.Null()])),
});

/** As read back (GET), contract §4. */
export const GeofenceRecord = Type.Object({
  id: Type.String(),
  tag: Type.Union([Type.String(), Type.Null()]),
  location: Location,
  ttl: Ttl,
  push_text: Type.Union([Type.String(), Type.Null()]),
  dwell: Dwell,
  metadata: Type.Union([Metadata, Type.Null()]),
  external_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
});

export const GeofenceList = Type.Object({
  geofences: Type.Array(GeofenceRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

/** A `near` search's answer: each record with its distance from the point, nearest first. */
export const NearGeofence = Type.Composite([GeofenceRecord, Type.Object({
  distance: Type.Number({ minimum: 0, description: 'metres from the point to the shape (0 inside)' }),
})]);
export const NearGeofenceList = Type.Object({
  geofences: Type.Array(NearGeofence),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

/** The import's answer (contract §4, as §9's beacon import): lines numbered from 1. */
export const GeofenceImportResult = Type.Object({
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
  errors: Type.Array(Type.Object({ line: Type.Integer({ minimum: 1 }), code: Type.String(), message: Type.String() })),
});

export type Circle = Static<typeof Circle>;
export type Polygon = Static<typeof Polygon>;
export type Location = Static<typeof Location>;
export type GeofenceRecord = Static<typeof GeofenceRecord>;
export type GeofenceList = Static<typeof GeofenceList>;
export type NearGeofenceList = Static<typeof NearGeofenceList>;
export type GeofenceImportResult = Static<typeof GeofenceImportResult>;
type MetadataValue = Static<typeof Metadata>;

/** As stored: the record plus its app. Records written before dwell, metadata and external_id lack them (read as 0, null, null). */
export type StoredGeofence = Omit<GeofenceRecord, 'dwell' | 'metadata' | 'external_id'>
  & Partial<Pick<GeofenceRecord, 'dwell' | 'metadata' | 'external_id'>> & { app_key: string };

/** What create hands the store, validated. */
export interface GeofenceInput {
  tag: string | null; location: Location; ttl: number; push_text: string | null;
  /** Absent: 0, null, null (the validator always fills them). */
  dwell?: number; metadata?: MetadataValue | null; external_id?: string | null;
}

/** What update hands the store: an absent key keeps the old value, null deletes it. */
export interface GeofencePatch {
  tag?: string | null; location?: Location; ttl?: number; push_text?: string | null;
  dwell?: number; metadata?: MetadataValue | null; external_id?: string | null;
}
