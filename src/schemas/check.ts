/**
 * Checks a value against a TypeBox schema (compiled once per schema) and throws the first error
 * as a 400 naming its path, what was expected and what arrived: the geofence and beacon bodies' rule.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { DwellError, invalid } from '../errors.js';

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

/** `expected` may put the schema's message in the reader's words (field name, TypeBox's message). */
export function checkSchema<T>(schema: TSchema, value: unknown, prefix = '', expected?: (name: string, message: string) => string): T {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  const first = c.Check(value) ? undefined : c.Errors(value).First();
  if (first) {
    const at = prefix + first.path;
    const name = at.slice(at.lastIndexOf('/') + 1) || 'body';
    throw invalid(at, `${name}: ${expected?.(name, first.message) ?? first.message.toLowerCase()}, got ${show(first.value)}`);
  }
  return value as T;
}

/** A value as an error message shows it: JSON, at most 60 characters. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const s = JSON.stringify(value);
  return s === undefined ? String(value) : s.length > 60 ? s.slice(0, 57) + '...' : s;
}

/** What a JSON value is, in words, for "expected …, got …": `null`, an array, a number, a string. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return `a ${typeof value} (${show(value)})`;
  return 'nothing';
}

/** Contract §5: a JSON body that is not an object is 400 `invalid_json`, saying what arrived. */
export function jsonObject(body: unknown, expected = 'a JSON object'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DwellError('invalid_json', `expected ${expected}, got ${kindOf(body)}`);
  }
  return body as Record<string, unknown>;
}
