import { DwellError } from '../errors.js';

/** Page sizes of the list endpoints (geofences, beacons): a default and a ceiling, one rule. */
export const LIMIT_DEFAULT = 100;
export const LIMIT_MAX = 1000;

/** `?limit=`: absent or empty is the default; anything but an integer from 1 to LIMIT_MAX is 400 at /limit. */
export function pageLimit(raw: string | null): number {
  if (raw === null || raw === '') return LIMIT_DEFAULT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > LIMIT_MAX) {
    throw new DwellError('invalid_request', `limit is an integer from 1 to ${LIMIT_MAX}, got ${JSON.stringify(raw)}`, '/limit');
  }
  return n;
}
