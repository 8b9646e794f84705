/**
 * Beacons (contract §9): the registry's create and update bodies, the record as stored and read
 * back, and the shapes detection shares with the registry (a registered beacon as a worker sees
 * it, and the beacons a stay heard) so that neither feature imports the other.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UUID_PATTERN } from './detect-request.js';

export const BEACON_LIMITS = {
  tagLength: 256,
  venueIdLength: 256,
  importLines: 100_000,
} as const;

const Uuid = Type.String({ pattern: UUID_PATTERN });
const Part = Type.Integer({ minimum: 0, maximum: 65535 });
export const BeaconLocation = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  long: Type.Number({ minimum: -180, maximum: 180 }),
}, { description: "the beacon's own position" });
const Tag = Type.String({ maxLength: BEACON_LIMITS.tagLength });
const VenueId = Type.String({ maxLength: BEACON_LIMITS.venueIdLength });

/** `location` is checked on its own so that a blank one reads as "none" with a clear message. */
export const CreateBeacon = Type.Object({
  uuid: Uuid,
  major: Part,
  minor: Part,
  venue_id: Type.Optional(Type.Union([VenueId, Type.Null()])),
  location: Type.Optional(Type.Unknown()),
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
});

/** Every field optional; blank `uuid`, `major`, `minor` are refused by the validator. */
export const UpdateBeacon = Type.Object({
  uuid: Type.Optional(Type.Unknown()),
  major: Type.Optional(Type.Unknown()),
  minor: Type.Optional(Type.Unknown()),
  venue_id: Type.Optional(Type.Union([VenueId, Type.Null()])),
  location: Type.Optional(Type.Unknown()),
  tag: Type.Optional(Type.Union([Tag, Type.Null()])),
});
export const BeaconUuid = Uuid;
export const BeaconPart = Part;

/** As read back (GET), in contract order; `uuid` in lower case. */
export const BeaconRecord = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  major: Part,
  minor: Part,
  venue_id: Type.Union([Type.String(), Type.Null()]),
  location: Type.Union([BeaconLocation, Type.Null()]),
  tag: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const BeaconList = Type.Object({
  beacons: Type.Array(BeaconRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const ImportResult = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  errors: Type.Array(Type.Object({ line: Type.Integer(), code: Type.String(), message: Type.String() })),
});

export type BeaconLocation = Static<typeof BeaconLocation>;
export type BeaconRecord = Static<typeof BeaconRecord>;
export type BeaconList = Static<typeof BeaconList>;
export type ImportResult = Static<typeof ImportResult>;
export type StoredBeacon = BeaconRecord & { app_key: string };

/** What create hands the store, validated (uuid lower-cased). */
export interface BeaconInput { uuid: string; major: number; minor: number; venue_id: string | null; location: BeaconLocation | null; tag: string | null }
/** What update hands the store: an absent key keeps the old value, null deletes it. */
export interface BeaconPatch { uuid?: string; major?: number; minor?: number; venue_id?: string | null; location?: BeaconLocation | null; tag?: string | null }

/** The identity a scan entry is looked up by: `uuid:major:minor`, uuid in lower case. */
export const beaconKey = (uuid: string, major: number, minor: number): string => `${uuid.toLowerCase()}:${major}:${minor}`;

/** A registered beacon as detection sees it: its venue and/or its own position (NaN when none). */
export interface RegisteredBeacon { venueId: string | null; lat: number; lon: number }

/** One app's registry as a detection worker reads it, in memory (beacons/lookup.ts). */
export interface BeaconView {
  find(key: string): RegisteredBeacon | undefined;
  /** How many beacons are registered at the venue (0: none). */
  atVenue(venueId: string): number;
}

/**
 * What a stay heard, compact enough to live in a stream's stored cluster: `r` signals carried a
 * `beacon_scan` (the device ranges beacons), `e` the beacons, [key, sum of rssi, readings, tx_power].
 */
export interface BeaconsHeard { r: number; e: Array<[string, number, number, number]> }
