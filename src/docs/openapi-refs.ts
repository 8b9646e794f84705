/**
 * TypeBox schemas as plain JSON Schema for the document, a named schema nested in another
 * replaced by a `$ref` to it: TypeBox composes by reference (SyncResponse holds the very Visit
 * object), so object identity says where a named schema is used; `Type.Optional(X)` is a copy
 * of X, found by its JSON.
 */
import type { TSchema } from '@sinclair/typebox';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `schemas` by name, each as JSON with the others referenced. */
export function componentSchemas(schemas: Record<string, TSchema>): Record<string, unknown> {
  const names = new Map<unknown, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!names.has(schema)) names.set(schema, name);
    if (!names.has(JSON.stringify(schema))) names.set(JSON.stringify(schema), name);
  }
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) out[name] = plain(schema, names, schema);
  return out;
}

function plain(value: unknown, names: Map<unknown, string>, self: unknown): unknown {
  if (value !== self && names.has(value)) return ref(names.get(value)!);
  if (Array.isArray(value)) return value.map((v) => plain(v, names, self));
  if (typeof value !== 'object' || value === null) return value;
  const json = JSON.stringify(value);
  if (value !== self && json !== JSON.stringify(self) && names.has(json)) return ref(names.get(json)!);
  // Object.entries leaves out TypeBox's symbol keys (Kind, Optional), which are not JSON Schema.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, names, self)]));
}
