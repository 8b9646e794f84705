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
    throw invalid(at, `${name}: ${expected?.(name, first.message) ?? expectation(first)}, got ${show(first.value)}`);
  }
  return value as T;
}

/**
 * What a TypeBox error expected, in words: a union, a value of the wrong kind and a missing
 * property say what the schema accepts ("expected an integer from 0 to 100"), not TypeBox's
 * "Expected union value", "Expected integer" or "Expected required property".
 */
export function expectation(error: { schema: TSchema; message: string }): string {
  if (error.schema.anyOf || KIND_ONLY.test(error.message)) return `expected ${expectedOf(error.schema)}`;
  if (error.message === 'Expected required property') return `expected ${expectedOf(error.schema)} (required)`;
  return error.message.toLowerCase();
}

const KIND_ONLY = /^Expected (boolean|number|integer|string|object|array|null)$/;

/** What a schema accepts, in words: "a string of at most 256 characters, or null" for TypeBox's "Expected union value". */
export function expectedOf(schema: TSchema): string {
  if (schema.anyOf) return (schema.anyOf as TSchema[]).map(expectedOf).join(', or ');
  if (schema.const !== undefined) return schema.const === '' ? '""' : JSON.stringify(schema.const);
  const range = (lo: unknown, hi: unknown, unit = '') =>
    lo !== undefined && hi !== undefined ? ` from ${lo} to ${hi}${unit}` : hi !== undefined ? ` of at most ${hi}${unit}` : lo !== undefined ? ` of at least ${lo}${unit}` : '';
  switch (schema.type) {
    case 'string': return `a string${range(schema.minLength, schema.maxLength, ' characters')}`;
    case 'integer': return `an integer${range(schema.minimum, schema.maximum)}`;
    case 'number': return `a number${range(schema.minimum, schema.maximum)}`;
    case 'boolean': return 'a boolean';
    case 'null': return 'null';
    case 'object': return 'an object';
    case 'array': return 'an array';
    default: return 'a value of another kind';
  }
}

/** Characters of a value an error message shows. */
const SHOWN = 60;

/**
 * A value as an error message shows it: JSON, at most SHOWN characters. Written only as far as
 * shown: a 5 MB string is not copied whole, and an object nested 10,000 deep (JSON.stringify
 * throws RangeError there) is a 400 like any other, not a 500.
 */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const s = preview(value, SHOWN + 1);
  return s.length > SHOWN ? s.slice(0, SHOWN - 3) + '...' : s;
}

/** JSON of `v`, stopped once `room` characters are written (so it recurses at most `room` deep). */
function preview(v: unknown, room: number): string {
  if (typeof v === 'string') return JSON.stringify(v.length > room ? v.slice(0, room) : v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length && s.length < room; i++) s += (i ? ',' : '') + preview(v[i], room - s.length);
    return s.length < room ? s + ']' : s;
  }
  if (v !== null && typeof v === 'object') {
    let s = '{';
    for (const k in v) {
      if (s.length >= room) break;
      s += (s.length > 1 ? ',' : '') + preview(k, room - s.length) + ':';
      s += preview((v as Record<string, unknown>)[k], room - s.length);
    }
    return s.length < room ? s + '}' : s;
  }
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s;
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
