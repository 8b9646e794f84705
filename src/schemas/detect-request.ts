/**
 * The detection request (interface 2.1–2.5, contract §2). One schema serves validation
 * (compiled once), the TypeScript types and the docs. Rules that a JSON Schema cannot say
 * (time ranges, unique ids, totals) live in `validate-detect.ts`.
 */
import { Type, type Static } from '@sinclair/typebox';

export const LIMITS = Object.freeze({
  events: 10,
  signals: 5000,
  wifiScan: 200,
  /** Entries of one `beacon_scan` (contract §9). */
  beaconScan: 100,
  customDataBytes: 4096,
  /**
   * Characters of an id (contract §2), counted as Unicode code points, what a person counts:
   * '𝄞' is one, though two UTF-16 units. At most 4 bytes each in UTF-8, so 1,024 bytes, which
   * keeps every key built from an id under LMDB's 1,978 bytes (users/keys.ts). Checked in
   * validate-detect.ts: JSON Schema's maxLength counts UTF-16 units in TypeBox.
   */
  idChars: 256,
});

/** `user_id`, `request_id`, `event_id`: 1 to LIMITS.idChars code points. */
const Id = Type.String({ minLength: 1, description: '1 to 256 characters (code points)' });

/** ISO-8601 date-time with seconds optional, fraction optional and a zone (`Z` or ±hh:mm). */
export const ISO_TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})$';
const Timestamp = Type.String({ pattern: ISO_TIMESTAMP, description: 'ISO-8601 with a zone offset' });
const Bssid = Type.String({ pattern: '^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$' });

export const Location = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  long: Type.Number({ minimum: -180, maximum: 180 }),
  accuracy: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  speed: Type.Optional(Type.Number({ minimum: -1 })),
  altitude: Type.Optional(Type.Number()),
  /** Contract §12: the SDK says the position is mocked (Android's mock provider, iOS's simulated location). */
  mocked: Type.Optional(Type.Boolean({ description: 'true when the OS says the position is mocked or simulated (contract §12)' })),
});

export const ActiveWifi = Type.Object({
  ssid: Type.Optional(Type.String()),
  bssid: Type.Optional(Bssid),
  strength: Type.Optional(Type.Integer({ maximum: 0 })),
});

export const ScanEntry = Type.Object({
  ssid: Type.Optional(Type.String()),
  bssid: Type.Optional(Bssid),
  strength: Type.Optional(Type.Integer({ maximum: 0 })),
  age: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** One iBeacon heard (contract §9); the uuid in either case, 8-4-4-4-12 hex. */
export const UUID_PATTERN = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';
export const BeaconEntry = Type.Object({
  uuid: Type.String({ pattern: UUID_PATTERN }),
  major: Type.Integer({ minimum: 0, maximum: 65535 }),
  minor: Type.Integer({ minimum: 0, maximum: 65535 }),
  rssi: Type.Integer({ minimum: -127, maximum: 0 }),
  tx_power: Type.Optional(Type.Integer({ minimum: -127, maximum: 20 })),
  age: Type.Optional(Type.Integer({ minimum: 0 })),
});

export const Signal = Type.Object({
  timestamp: Timestamp,
  location: Type.Optional(Location),
  active_wifi: Type.Optional(ActiveWifi),
  wifi_scan: Type.Optional(Type.Array(ScanEntry, { maxItems: LIMITS.wifiScan })),
  beacon_scan: Type.Optional(Type.Array(BeaconEntry, { maxItems: LIMITS.beaconScan })),
});

export const Event = Type.Object({
  event_id: Id,
  type: Type.Union([Type.Literal('visit'), Type.Literal('transit')]),
  start_time: Timestamp,
  end_time: Timestamp,
  data: Type.Array(Signal, { maxItems: LIMITS.signals }),
});

/** Any JSON object, echoed in triggers: open (`additionalProperties`), so generated clients type it as a record. */
export const CustomData = Type.Object({}, { additionalProperties: true, description: 'any JSON object, at most 4 KiB as JSON; echoed in triggers' });

const common = {
  request_id: Type.Optional(Id),
  /** Empty counts as absent (users/identity.ts). */
  advertising_id: Type.Optional(Type.String({ description: 'at most 256 characters (code points); empty counts as absent' })),
  user_id: Type.Optional(Id),
  sdk_version: Type.Optional(Type.String()),
  hosting_app: Type.Optional(Type.String()),
  os: Type.Optional(Type.Union([Type.Literal('Android'), Type.Literal('iOS')])),
  os_version: Type.Optional(Type.String()),
  device_model: Type.Optional(Type.String()),
  device_brand: Type.Optional(Type.String()),
  gender: Type.Optional(Type.Union([Type.Literal('M'), Type.Literal('F'), Type.Literal('O')])),
  yob: Type.Optional(Type.Integer({ minimum: 1000, maximum: 9999 })),
  custom_data: Type.Optional(CustomData),
};

export const StructuredRequest = Type.Object({
  ...common,
  events: Type.Array(Event, { maxItems: LIMITS.events }),
});

export const UnstructuredRequest = Type.Object({
  ...common,
  data: Type.Array(Signal, { maxItems: LIMITS.signals }),
});

export type Location = Static<typeof Location>;
export type Signal = Static<typeof Signal>;
export type BeaconEntry = Static<typeof BeaconEntry>;
export type Event = Static<typeof Event>;
export type StructuredRequest = Static<typeof StructuredRequest>;
export type UnstructuredRequest = Static<typeof UnstructuredRequest>;
export type DetectRequest = StructuredRequest | UnstructuredRequest;
