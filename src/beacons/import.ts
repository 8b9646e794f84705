/**
 * The bulk import (contract §9): one beacon object a line (NDJSON), or a JSON array of them.
 * Each line is checked on its own; a bad line is reported by its number (1-based, blank lines
 * counted, so it matches an editor's) and the good ones are written. A line whose
 * uuid/major/minor the app already has updates that beacon with the fields the line names.
 */
import { DwellError } from '../errors.js';
import { BEACON_LIMITS, type ImportResult } from '../schemas/beacon.js';
import type { ImportItem } from './store.js';
import { validateCreate, validateUpdate } from './validate.js';
import { show } from '../schemas/check.js';
import { importLines } from '../http/import-lines.js';

export type LineError = ImportResult['errors'][number];

/** Parsed and checked lines; `venueKnown` answers whether a venue id is in the served store. */
export function parseImport(bytes: Uint8Array, venueKnown: (id: string) => boolean): { items: ImportItem[]; errors: LineError[] } {
  const lines = importLines(bytes, 'beacon', BEACON_LIMITS.importLines, (rows) =>
    new DwellError('invalid_request', `an import holds at most ${BEACON_LIMITS.importLines} lines, got ${rows}: split it`));
  const items: ImportItem[] = [], errors: LineError[] = [];
  for (const l of lines) {
    if ('fault' in l) { errors.push(l.fault); continue; }
    const { line, value } = l;
    try {
      const input = validateCreate(value);
      if (input.venue_id !== null && !venueKnown(input.venue_id)) {
        throw new DwellError('invalid_request', `venue_id ${show(input.venue_id)} is not a venue of the served store`, '/venue_id');
      }
      items.push({ input, patch: validateUpdate(value) });
    } catch (err) {
      if (!(err instanceof DwellError)) throw err;
      const at = err.path ? ` (at ${err.path})` : '';
      errors.push({ line, code: err.code, message: err.message + at });
    }
  }
  return { items, errors };
}
