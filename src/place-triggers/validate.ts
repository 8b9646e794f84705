/**
 * Create and update bodies of place triggers (contract §11): the schema's first error with its
 * JSON Pointer, then what a schema cannot say. A blank (`""` or null) optional field reads as
 * "no value"; after an update, at least one of brand and type_id must remain (routes check it on
 * the patched record, see `needsMatch`).
 */
import { invalid } from '../errors.js';
import { checkSchema, jsonObject, show } from '../schemas/check.js';
import { Metadata } from '../schemas/metadata.js';
import { UpdatePlaceTrigger, type PlaceTriggerInput, type PlaceTriggerPatch } from '../schemas/place-trigger.js';
import { typesBelow } from './types-below.js';

type Body = { [K in keyof PlaceTriggerInput]?: PlaceTriggerInput[K] | '' };

export function validateCreate(body: unknown): PlaceTriggerInput {
  const p = validateUpdate(body);
  const input: PlaceTriggerInput = {
    brand: p.brand ?? null, type_id: p.type_id ?? null, radius: p.radius ?? null, dwell: p.dwell ?? 0,
    tag: p.tag ?? null, push_text: p.push_text ?? null, metadata: p.metadata ?? null,
  };
  needsMatch(input);
  return input;
}

export function validateUpdate(body: unknown): PlaceTriggerPatch {
  const o = jsonObject(body, 'a JSON object with brand and/or type_id');
  // On its own first, so a bad value is named at its key (/metadata/k), not at the union around it.
  if (!blank(o.metadata) && o.metadata !== undefined) checkSchema(Metadata, o.metadata, '/metadata');
  const b = checkSchema<Body>(UpdatePlaceTrigger, o);
  const patch: PlaceTriggerPatch = {};
  if ('brand' in b) patch.brand = blank(b.brand) ? null : (b.brand as string);
  if ('type_id' in b) patch.type_id = typeId(b.type_id);
  if ('radius' in b) patch.radius = blank(b.radius) ? null : (b.radius as number);
  if ('dwell' in b) patch.dwell = blank(b.dwell) ? 0 : (b.dwell as number);
  if ('tag' in b) patch.tag = blank(b.tag) ? null : (b.tag as string);
  if ('push_text' in b) patch.push_text = blank(b.push_text) ? null : (b.push_text as string);
  if ('metadata' in b) patch.metadata = blank(b.metadata) ? null : (b.metadata as Metadata);
  return patch;
}

/** Contract §11: a trigger matches by brand, by type or both, never by nothing. */
export function needsMatch(rec: { brand: string | null; type_id: number | null }): void {
  if (rec.brand === null && rec.type_id === null) {
    throw invalid('/brand', 'a place trigger needs brand or type_id (or both): it would match no venue');
  }
}

function typeId(v: unknown): number | null {
  if (blank(v)) return null;
  const id = v as number;
  if (!typesBelow(id)) throw invalid('/type_id', `type_id: no type ${show(v)} in the taxonomy (GET a visit's place.type_id, or see data/taxonomy.json)`);
  return id;
}

const blank = (v: unknown) => v === null || v === '';
