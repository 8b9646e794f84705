/**
 * What detection answers (interface 2.6–2.8, contract §2): the visit object, the synchronous
 * response and the trigger response. Types for the code, schemas for the docs and the tests.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CustomData } from './detect-request.js';
import { Metadata } from './metadata.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/**
 * Always all seven keys, in the interface's order, each a string: "" where unknown (contract §2),
 * so a client can read any of them without testing for its presence.
 */
export const Address = Type.Object({
  city: Type.String(),
  country: Type.String(),
  state: Type.String(),
  formatted_city: Type.String(),
  postal_code: Type.String(),
  formatted_address: Type.String(),
  street_address: Type.String(),
});

export const VenueInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  category: Type.String(),
  sub_category: Type.String(),
  probability: Type.Number({ minimum: 0, maximum: 1 }),
});

export const Geolocation = Type.Object({ lat: Type.Number(), long: Type.Number(), accuracy: Type.Number() });

export const Place = Type.Object({
  id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  type_id: Type.Optional(Type.Integer()),
  estimated_address: Address,
  /**
   * Null only for a visit that could not be located at all (no fix, and no network whose place
   * the app has learned): the key stays, like place_id, and null says "unknown" where any number
   * would name a wrong place.
   */
  estimated_geolocation: Type.Union([Geolocation, Type.Null()]),
  venue_info: Type.Optional(VenueInfo),
  venues: Type.Optional(Type.Array(VenueInfo)),
  first_visit_time: Type.Optional(Type.String()),
  last_visit_time: Type.Optional(Type.String()),
});

/** Contract §12: why a visit or event is not to be trusted. */
export const INTEGRITY_FLAGS = ['jumped', 'inaccurate', 'clock_skew', 'wifi_mismatch', 'mocked'] as const;
export type IntegrityFlag = (typeof INTEGRITY_FLAGS)[number];
export const Integrity = Type.Object({
  passed: Type.Boolean({ description: 'true exactly when `flags` is empty' }),
  flags: Type.Array(Type.Union(INTEGRITY_FLAGS.map((f) => Type.Literal(f)))),
}, { description: 'contract §12: whether to trust this visit or event, and why not' });

/** Where an event happened: the location signal that raised it. */
const EventLocation = Type.Object({ lat: Type.Number(), long: Type.Number(), accuracy: Type.Optional(Type.Number()) });

export const Visit = Type.Object({
  id: Type.String(),
  event_type: Type.Union([Type.Literal('visit'), Type.Literal('transit')]),
  is_confirmed: Type.Boolean(),
  start_time: Type.String(),
  end_time: Type.Optional(Type.String()),
  place_id: Nullable(Type.String()),
  place: Type.Union([Place, Type.Null()]),
  /** Contract §2: a user's learned home or workplace; absent for a request without a user id. */
  user_place: Type.Optional(Type.Union([Type.Literal('home'), Type.Literal('work'), Type.Null()], {
    description: 'contract §2: "home" where this user\'s own history shows they spend their nights, "work" where they spend weekday working hours, else null (docs/api.md, Home and work); on every visit of a request with a user id, absent without one',
  })),
  integrity: Type.Optional(Integrity),
});

const EventType = Type.Union([Type.Literal('entry'), Type.Literal('exit'), Type.Literal('dwell')]);

export const GeofenceEvent = Type.Object({
  type: EventType,
  geofence_id: Type.String(),
  tag: Type.Union([Type.String(), Type.Null()]),
  push_text: Type.Union([Type.String(), Type.Null()]),
  /** Contract §4: the geofence's metadata, null when it has none. */
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
  timestamp: Type.String(),
  location: EventLocation,
  integrity: Type.Optional(Integrity),
});

/** Contract §11: the venue a place trigger matched. */
export const PlaceEventVenue = Type.Object({
  id: Type.String(),
  name: Type.String(),
  brand: Type.Union([Type.String(), Type.Null()]),
  category: Type.String(),
  type_id: Type.Union([Type.Integer(), Type.Null()]),
});

export const PlaceEvent = Type.Object({
  type: EventType,
  trigger_id: Type.String(),
  tag: Type.Union([Type.String(), Type.Null()]),
  push_text: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Union([Metadata, Type.Null()]),
  venue: PlaceEventVenue,
  timestamp: Type.String(),
  location: EventLocation,
  integrity: Type.Optional(Integrity),
});

export const RegionEvent = Type.Object({
  type: Type.Union([Type.Literal('entry'), Type.Literal('exit')]),
  level: Type.Literal('country'),
  code: Type.String({ description: 'ISO 3166-1 alpha-2' }),
  name: Type.String({ description: 'the country\'s English name' }),
  timestamp: Type.String(),
  location: EventLocation,
  integrity: Type.Optional(Integrity),
});

export const SyncItem = Type.Object({
  event_id: Type.Optional(Type.String()),
  visit: Visit,
});

export const SyncResponse = Type.Object({
  data: Type.Array(SyncItem),
  geofence_events: Type.Optional(Type.Array(GeofenceEvent)),
  place_events: Type.Optional(Type.Array(PlaceEvent)),
  region_events: Type.Optional(Type.Array(RegionEvent)),
  result: Type.Literal('SUCCESS'),
});

export const UserInfo = Type.Object({
  user_id: Type.Union([Type.String(), Type.Null()]),
  device_id: Type.Union([Type.String(), Type.Null()]),
  app_key: Type.String(),
  custom_data: Type.Union([CustomData, Type.Null()]),
});

export const Trigger = Type.Object({
  data: Type.Object({
    id: Type.String(),
    request_id: Type.String(),
    event_id: Type.Optional(Type.String()),
    user_info: UserInfo,
    visit: Type.Optional(Visit),
    geofence_event: Type.Optional(GeofenceEvent),
    place_event: Type.Optional(PlaceEvent),
    region_event: Type.Optional(RegionEvent),
  }),
  result: Type.Literal('SUCCESS'),
});

export type Address = Static<typeof Address>;
/** What a source or the gazetteer knows of an address: any of the seven keys. */
export type AddressParts = Partial<Address>;
export type VenueInfo = Static<typeof VenueInfo>;
export type Place = Static<typeof Place>;
export type Visit = Static<typeof Visit>;
export type SyncItem = Static<typeof SyncItem>;
export type SyncResponse = Static<typeof SyncResponse>;
export type Trigger = Static<typeof Trigger>;
export type GeofenceEvent = Static<typeof GeofenceEvent>;
export type PlaceEvent = Static<typeof PlaceEvent>;
export type RegionEvent = Static<typeof RegionEvent>;
export type Integrity = Static<typeof Integrity>;
