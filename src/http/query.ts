/**
 * A request's query string, each parameter given at most once. `near=1,2&near=3,4` would
 * otherwise answer for whichever one the code happened to read; a repeated parameter is a 400 at
 * its name instead (contract §5), saying how many values arrived.
 */
import { DwellError } from '../errors.js';

export function singleQuery(query: string): URLSearchParams {
  const q = new URLSearchParams(query);
  const seen = new Set<string>();
  for (const k of q.keys()) {
    if (seen.has(k)) throw new DwellError('invalid_request', `${k} is given once, got ${q.getAll(k).length} values`, '/' + k);
    seen.add(k);
  }
  return q;
}
