/**
 * Create and update bodies (contract §4): the schema's first error with its JSON Pointer, then
 * the geometry rules. A blank (`""` or null) optional field reads as "no value"; a blank
 * `location` or `ttl` is refused, since a geofence cannot be without either.
 */
import { invalid } from '../errors.js';
import { checkSchema, jsonObject, show } from '../schemas/check.js';
import {
  Circle, CreateGeofence, LIMITS, Polygon, Ttl, UpdateGeofence,
  type GeofenceInput, type GeofencePatch, type Location,
} from '../schemas/geofence.js';
import { preparePolygon } from './geometry.js';

type Extras = Pick<GeofencePatch, 'dwell' | 'metadata' | 'external_id'>;

export function validateCreate(body: unknown): GeofenceInput {
  const b = checkSchema<{ tag?: string | null; location: unknown; ttl: number; push_text?: string | null } & Extras>(CreateGeofence, prechecked(body));
  if (!('location' in b)) throw invalid('/location', 'location is required: a circle {lat, long, radius} or a polygon {polygon: [{lat, long}, …]}');
  return {
    tag: optional(b.tag), location: location(b.location), ttl: b.ttl, push_text: optional(b.push_text),
    dwell: b.dwell ?? 0, metadata: b.metadata ?? null, external_id: b.external_id ?? null,
  };
}

export function validateUpdate(body: unknown): GeofencePatch {
  const b = checkSchema<{ tag?: string | null; location?: unknown; ttl?: unknown; push_text?: string | null } & Extras>(UpdateGeofence, prechecked(body));
  const patch: GeofencePatch = {};
  if ('tag' in b) patch.tag = optional(b.tag);
  if ('push_text' in b) patch.push_text = optional(b.push_text);
  if (b.dwell !== undefined) patch.dwell = b.dwell;
  if ('metadata' in b) patch.metadata = b.metadata ?? null;
  if ('external_id' in b) patch.external_id = b.external_id ?? null;
  if ('location' in b) {
    if (blank(b.location)) throw invalid('/location', `location cannot be blank: send a circle or a polygon, or leave it out to keep the current one; got ${show(b.location)}`);
    patch.location = location(b.location);
  }
  if ('ttl' in b) {
    if (blank(b.ttl)) throw invalid('/ttl', `ttl cannot be blank: send seconds (0 = never expires), or leave it out to keep the current one; got ${show(b.ttl)}`);
    patch.ttl = checkSchema<number>(Ttl, b.ttl, '/ttl');
  }
  return patch;
}

/** Only the known keys are kept, so what is read back is exactly the shape. */
export function location(loc: unknown): Location {
  if (typeof loc !== 'object' || loc === null || Array.isArray(loc)) {
    throw invalid('/location', `location: expected an object, a circle {lat, long, radius} or a polygon {polygon: [...]}, got ${show(loc)}`);
  }
  if ('polygon' in loc) {
    if ('radius' in loc) throw invalid('/location', 'location is a circle (lat, long, radius) or a polygon, not both');
    const p = checkSchema<Polygon>(Polygon, loc, '/location');
    preparePolygon(p.polygon, '/location/polygon');
    return { polygon: p.polygon.map((v) => ({ lat: v.lat, long: v.long })) };
  }
  const c = checkSchema<Circle>(Circle, loc, '/location');
  return { lat: c.lat, long: c.long, radius: c.radius };
}

/**
 * `metadata` and `external_id` checked before the schema, so a bad one is answered at its own
 * path (`/metadata/<key>`) with words rather than the union's "expected union value".
 */
function precheck(b: Record<string, unknown>): void {
  const x = b.external_id;
  if (x !== undefined && x !== null && (typeof x !== 'string' || x.length < 1 || x.length > LIMITS.externalIdLength)) {
    throw invalid('/external_id', `external_id: a string of 1 to ${LIMITS.externalIdLength} characters (null on update removes it), got ${show(x)}`);
  }
  const m = b.metadata;
  if (m === undefined || m === null) return;
  if (typeof m !== 'object' || Array.isArray(m)) throw invalid('/metadata', `metadata: an object of at most ${METADATA_KEYS} keys, or null, got ${show(m)}`);
  const keys = Object.keys(m);
  if (keys.length > METADATA_KEYS) throw invalid('/metadata', `metadata: at most ${METADATA_KEYS} keys, got ${keys.length}`);
  for (const k of keys) {
    const at = `/metadata/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (k.length < 1 || k.length > 64) throw invalid(at, `metadata keys are 1 to 64 characters, got ${show(k)}`);
    const v = (m as Record<string, unknown>)[k];
    const ok = typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 256);
    if (!ok) throw invalid(at, `metadata values are a string of at most 256 characters, a finite number or a boolean, got ${show(v)}`);
  }
}

const METADATA_KEYS = 16;

function prechecked(body: unknown): Record<string, unknown> {
  const b = object(body);
  precheck(b);
  return b;
}

function object(body: unknown): Record<string, unknown> {
  return jsonObject(body, 'a JSON object with location and ttl') as Record<string, unknown>;
}

const blank = (v: unknown) => v === null || v === '';
const optional = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? null : v);


export { LIMITS };
