/**
 * The geofence import (contract §4, as §9's beacon import, beacons/import.ts): one geofence object
 * a line (NDJSON, or a JSON array of them). Each line is checked on its own; a bad line is reported
 * by its number (1-based, blank lines counted, so it matches an editor's) and the good ones land.
 * A line is kept both as a create and as a patch: whether its external_id names a live fence is
 * only known when the store writes it, and an update may leave out location and ttl.
 */
import { DwellError } from '../errors.js';
import { LIMITS, type GeofenceImportResult, type GeofenceInput, type GeofencePatch } from '../schemas/geofence.js';
import { validateCreate, validateUpdate } from './validate.js';
import { importLines } from '../http/import-lines.js';

export type LineError = GeofenceImportResult['errors'][number];

/** One good line: the patch for the fence its external_id names, else the record to create (or why it cannot be). */
export interface ImportItem { line: number; external_id: string | null; patch: GeofencePatch; input: GeofenceInput | LineError }

/** Lines the store refused (a line that creates but is no valid create), for the answer. */
export const lineError = (line: number, err: unknown): LineError => {
  if (!(err instanceof DwellError)) throw err;
  return { line, code: err.code, message: err.message + (err.path ? ` (at ${err.path})` : '') };
};

export function parseImport(bytes: Uint8Array): { items: ImportItem[]; errors: LineError[] } {
  const lines = importLines(bytes, 'geofence', LIMITS.importLines, (rows) =>
    new DwellError('body_too_large', `an import holds at most ${LIMITS.importLines} lines, got ${rows}: split it (nothing was imported)`));
  const items: ImportItem[] = [], errors: LineError[] = [];
  for (const l of lines) {
    if ('fault' in l) { errors.push(l.fault); continue; }
    const { line, value } = l;
    let patch: GeofencePatch;
    try { patch = validateUpdate(value); } catch (err) { errors.push(lineError(line, err)); continue; }
    let input: GeofenceInput | LineError;
    try { input = validateCreate(value); } catch (err) { input = lineError(line, err); }
    // Without an external_id the line can only create.
    const external_id = patch.external_id ?? null;
    if (external_id === null && 'code' in input) { errors.push(input); continue; }
    items.push({ line, external_id, patch, input });
  }
  return { items, errors };
}
