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

export type LineError = ImportResult['errors'][number];

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parsed and checked lines; `venueKnown` answers whether a venue id is in the served store. */
export function parseImport(bytes: Uint8Array, venueKnown: (id: string) => boolean): { items: ImportItem[]; errors: LineError[] } {
  let text: string;
  try { text = utf8.decode(bytes); } catch { throw new DwellError('invalid_json', 'the body is not valid UTF-8'); }
  const rows = rowsOf(text);
  if (rows.length > BEACON_LIMITS.importLines) {
    throw new DwellError('invalid_request', `an import holds at most ${BEACON_LIMITS.importLines} lines, got ${rows.length}: split it`);
  }
  const items: ImportItem[] = [], errors: LineError[] = [];
  rows.forEach((row, i) => {
    const line = i + 1;
    if (row.kind === 'blank') return;
    let value = row.kind === 'value' ? row.value : undefined;
    if (row.kind === 'text') {
      try { value = JSON.parse(row.text); } catch (err) {
        errors.push({ line, code: 'invalid_json', message: `not valid JSON (${(err as Error).message})` });
        return;
      }
    }
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
  });
  return { items, errors };
}

type Row = { kind: 'blank' } | { kind: 'text'; text: string } | { kind: 'value'; value: unknown };

/** A JSON array is one row per element; anything else is JSON lines. */
function rowsOf(text: string): Row[] {
  const start = text.trimStart();
  if (start.startsWith('[')) {
    let arr: unknown;
    try { arr = JSON.parse(start); } catch (err) {
      throw new DwellError('invalid_json', `the body starts like a JSON array but is not valid JSON (${(err as Error).message}); send one beacon object a line instead`);
    }
    if (!Array.isArray(arr)) throw new DwellError('invalid_json', 'expected one beacon object a line, or a JSON array of them');
    return arr.map((value) => ({ kind: 'value', value }));
  }
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.map((l) => (l.trim() === '' ? { kind: 'blank' } : { kind: 'text', text: l }));
}
