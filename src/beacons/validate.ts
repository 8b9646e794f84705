/**
 * Create and update bodies of the beacon registry (contract §9), checked as geofences are
 * (geofences/validate.ts): the schema's first error with its JSON Pointer, then the rules a
 * schema cannot say. A blank (`""` or null) optional field reads as "no value"; a blank `uuid`,
 * `major` or `minor` is refused, and a beacon keeps at least one of `venue_id` and `location`.
 * Whether `venue_id` names a venue of the served store is the routes' check (they hold the store).
 */
import type { TSchema } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import { checkSchema, jsonObject, show } from '../schemas/check.js';
import {
  BeaconLocation, BeaconPart, BeaconUuid, CreateBeacon, UpdateBeacon,
  type BeaconInput, type BeaconPatch,
} from '../schemas/beacon.js';

/** TypeBox's pattern message for a uuid says nothing a reader can use. */
const expected = (name: string, message: string) =>
  name === 'uuid' && message.includes('match') ? 'expected a UUID of 36 characters, 8-4-4-4-12 hex digits' : message.toLowerCase();
const check = <T>(schema: TSchema, value: unknown, prefix = ''): T => checkSchema<T>(schema, value, prefix, expected);

type Body = Record<string, unknown>;

export function validateCreate(body: unknown): BeaconInput {
  const b = check<{ uuid: string; major: number; minor: number; venue_id?: string | null; location?: unknown; tag?: string | null }>(CreateBeacon, object(body));
  const out: BeaconInput = {
    uuid: b.uuid.toLowerCase(), major: b.major, minor: b.minor,
    venue_id: optional(b.venue_id), location: blank(b.location) || b.location === undefined ? null : location(b.location), tag: optional(b.tag),
  };
  if (out.venue_id === null && out.location === null) {
    throw invalid('', 'a beacon needs a venue_id (a venue of the served store) or a location {lat, long}, or both');
  }
  return out;
}

export function validateUpdate(body: unknown): BeaconPatch {
  const b = check<Body>(UpdateBeacon, object(body));
  const patch: BeaconPatch = {};
  if ('uuid' in b) patch.uuid = required<string>(BeaconUuid, b.uuid, 'uuid').toLowerCase();
  if ('major' in b) patch.major = required<number>(BeaconPart, b.major, 'major');
  if ('minor' in b) patch.minor = required<number>(BeaconPart, b.minor, 'minor');
  if ('venue_id' in b) patch.venue_id = optional(b.venue_id as string | null);
  if ('location' in b) patch.location = blank(b.location) ? null : location(b.location);
  if ('tag' in b) patch.tag = optional(b.tag as string | null);
  return patch;
}

function required<T>(schema: TSchema, v: unknown, name: string): T {
  if (blank(v)) throw invalid(`/${name}`, `${name} cannot be blank: send a value, or leave it out to keep the current one; got ${show(v)}`);
  return check<T>(schema, v, `/${name}`);
}

/** Only the known keys are kept, so what is read back is exactly the shape. */
function location(loc: unknown): BeaconLocation {
  if (typeof loc !== 'object' || loc === null || Array.isArray(loc)) {
    throw invalid('/location', `location: expected an object {lat, long}, got ${show(loc)}`);
  }
  const c = check<BeaconLocation>(BeaconLocation, loc, '/location');
  return { lat: c.lat, long: c.long };
}

function object(body: unknown): Body {
  return jsonObject(body, 'a JSON object {uuid, major, minor, venue_id?, location?, tag?}') as Body;
}

const blank = (v: unknown) => v === null || v === '';
const optional = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? null : v);

