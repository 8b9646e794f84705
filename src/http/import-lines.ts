/**
 * The body of a bulk import (contract §4's geofences, §9's beacons): one JSON object a line
 * (NDJSON), or a JSON array of them. Lines are numbered from 1 with blank lines counted, so a
 * reported number matches an editor's; a line that is not JSON is reported by its number and the
 * others go on. The caller checks each value against its own schema.
 */
import { DwellError } from '../errors.js';
import type { Exchange } from './reply.js';

export interface LineFault { line: number; code: string; message: string }
export type ImportLine = { line: number; value: unknown } | { line: number; fault: LineFault };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's lines (blank ones left out). `noun` names a line's object in the messages; more than
 * `maxLines` rows throws `tooMany(rows)`, before any line is read (nothing is imported).
 */
export function importLines(bytes: Uint8Array, noun: string, maxLines: number, tooMany: (rows: number) => DwellError): ImportLine[] {
  let text: string;
  try { text = utf8.decode(bytes); } catch { throw new DwellError('invalid_json', 'the body is not valid UTF-8'); }
  const rows = rowsOf(text, noun);
  if (rows.length > maxLines) throw tooMany(rows.length);
  const out: ImportLine[] = [];
  rows.forEach((row, i) => {
    const line = i + 1;
    if (row.kind === 'blank') return;
    if (row.kind === 'value') return void out.push({ line, value: row.value });
    try {
      out.push({ line, value: JSON.parse(row.text) });
    } catch (err) {
      out.push({ line, fault: { line, code: 'invalid_json', message: `not valid JSON (${(err as Error).message})` } });
    }
  });
  return out;
}

type Row = { kind: 'blank' } | { kind: 'text'; text: string } | { kind: 'value'; value: unknown };

/** A JSON array is one row per element; anything else is JSON lines. */
function rowsOf(text: string, noun: string): Row[] {
  const start = text.trimStart();
  if (start.startsWith('[')) {
    let arr: unknown;
    try { arr = JSON.parse(start); } catch (err) {
      throw new DwellError('invalid_json', `the body starts like a JSON array but is not valid JSON (${(err as Error).message}); send one ${noun} object a line instead`);
    }
    if (!Array.isArray(arr)) throw new DwellError('invalid_json', `expected one ${noun} object a line, or a JSON array of them`);
    return arr.map((value) => ({ kind: 'value', value }));
  }
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.map((l) => (l.trim() === '' ? { kind: 'blank' } : { kind: 'text', text: l }));
}

/** An import's body is NDJSON or a JSON array, gzip or plain (415 otherwise), told before it is read. */
export function checkImportType(ex: Exchange): void {
  const encoding = ex.header('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'gzip' && encoding !== 'identity') {
    throw new DwellError('unsupported_media_type', `Content-Encoding is gzip or absent, got ${JSON.stringify(encoding)}`);
  }
  const type = ex.header('content-type').split(';')[0].trim().toLowerCase();
  if (type !== '' && type !== 'application/x-ndjson' && type !== 'application/json') {
    throw new DwellError('unsupported_media_type', `Content-Type is application/x-ndjson or application/json, got ${JSON.stringify(type)}`);
  }
}
