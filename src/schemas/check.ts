/**
 * Checks a value against a TypeBox schema (compiled once per schema) and throws the first error
 * as a 400 naming its path, what was expected and what arrived: the geofence and beacon bodies' rule.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { invalid } from '../errors.js';

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
