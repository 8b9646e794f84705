/** The `near`, `radius` and `cursor` query parameters of a near search (contract §4), each a 400 at its name. */
import { DwellError } from '../errors.js';
import { LIMITS } from '../schemas/geofence.js';
import { ID_PATTERN } from './store.js';
import type { NearQuery } from './near.js';

const bad = (param: string, message: string) => new DwellError('invalid_request', message, `/${param}`);

export function nearQuery(q: URLSearchParams, tag: string | undefined, limit: number): NearQuery {
  const near = q.get('near');
  if (near === null) throw bad('near', 'radius goes with near=<lat>,<long>: the point to search around');
  const m = /^\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*,\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$/.exec(near);
  const lat = m ? Number(m[1]) : NaN, long = m ? Number(m[2]) : NaN;
  if (!(Math.abs(lat) <= 90) || !(Math.abs(long) <= 180)) {
    throw bad('near', `near is <lat>,<long> in degrees (lat -90 to 90, long -180 to 180), got ${JSON.stringify(near)}`);
  }
  const r = q.get('radius');
  const radius = r === null || r === '' ? LIMITS.nearRadiusDefault : Number(r);
  if (!(radius >= LIMITS.radiusMin && radius <= LIMITS.radiusMax)) {
    throw bad('radius', `radius is metres, ${LIMITS.radiusMin} to ${LIMITS.radiusMax} (default ${LIMITS.nearRadiusDefault}), got ${JSON.stringify(r)}`);
  }
  return { lat, long, radius, tag, limit, after: cursorIn(q.get('cursor')) };
}

/** A near page's cursor: the last item's distance and id, base64url. */
function cursorIn(raw: string | null): NearQuery['after'] {
  if (raw === null || raw === '') return undefined;
  const [d, id] = Buffer.from(raw, 'base64url').toString().split(' ');
  const distance = Number(d);
  if (!Number.isFinite(distance) || distance < 0 || !ID_PATTERN.test(id ?? '')) {
    throw bad('cursor', `cursor is the next_cursor of a previous page of this search, got ${JSON.stringify(raw)}`);
  }
  return { distance, id };
}
