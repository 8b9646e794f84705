/**
 * `metadata` of a geofence or a place trigger (contract §4): at most 16 keys of 1 to 64
 * characters, each value a string of at most 256 characters, a finite number or a boolean.
 * Echoed in every event the geofence or trigger raises (`null` when it has none).
 */
import { Type, type Static } from '@sinclair/typebox';

export const MetadataValue = Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]);

export const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 64 }), MetadataValue, {
  maxProperties: 16,
  description: 'at most 16 keys (1 to 64 characters), each value a string of at most 256 characters, a finite number or a boolean',
});

export type Metadata = Static<typeof Metadata>;
