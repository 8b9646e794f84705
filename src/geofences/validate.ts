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

export function validateCreate(body: unknown): GeofenceInput {
  const b = checkSchema<{ tag?: string | null; location: unknown; ttl: number; push_text?: string | null }>(CreateGeofence, object(body));
  if (!('location' in b)) throw invalid('/location', 'location is required: a circle {lat, long, radius} or a polygon {polygon: [{lat, long}, …]}');
  return { tag: optional(b.tag), location: location(b.location), ttl: b.ttl, push_text: optional(b.push_text) };
}

export function validateUpdate(body: unknown): GeofencePatch {
  const b = checkSchema<{ tag?: string | null; location?: unknown; ttl?: unknown; push_text?: string | null }>(UpdateGeofence, object(body));
  const patch: GeofencePatch = {};
  if ('tag' in b) patch.tag = optional(b.tag);
  if ('push_text' in b) patch.push_text = optional(b.push_text);
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

function object(body: unknown): Record<string, unknown> {
  return jsonObject(body, 'a JSON object with location and ttl') as Record<string, unknown>;
}

const blank = (v: unknown) => v === null || v === '';
const optional = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? null : v);


export { LIMITS };
