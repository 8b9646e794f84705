/**
 * Place trigger records, the same in both engines (lmdb-store.ts, nats-store.ts): ids, a new
 * record, a patched one, the public shape, and the store interface the routes use.
 */
import { randomBytes } from 'node:crypto';
import type { PlaceTriggerInput, PlaceTriggerPatch, PlaceTriggerRecord, StoredPlaceTrigger } from '../schemas/place-trigger.js';

export const ID_PATTERN = /^pt_[0-9a-f]{24}$/;
export const newId = (): string => 'pt_' + randomBytes(12).toString('hex');
const iso = (ms: number) => new Date(ms).toISOString();

export function newTrigger(app: string, input: PlaceTriggerInput, now: number): StoredPlaceTrigger {
  const at = iso(now);
  return { id: newId(), app_key: app, ...input, created_at: at, updated_at: at };
}

export function patchedTrigger(old: StoredPlaceTrigger, patch: PlaceTriggerPatch, now: number): StoredPlaceTrigger {
  return { ...old, ...patch, updated_at: iso(now) };
}

/** The record as customers read it: no app key, fields in contract order. */
export function publicTrigger(r: StoredPlaceTrigger): PlaceTriggerRecord {
  return {
    id: r.id, brand: r.brand, type_id: r.type_id, radius: r.radius, dwell: r.dwell, tag: r.tag,
    push_text: r.push_text, metadata: r.metadata, created_at: r.created_at, updated_at: r.updated_at,
  };
}

type Maybe<T> = T | Promise<T>;

/** What the routes ask of either engine. `create` answers undefined when the app has 100 already. */
export interface PlaceTriggerApi {
  get(app: string, id: string): Maybe<StoredPlaceTrigger | undefined>;
  list(app: string, q: { after?: string; limit: number }): Maybe<{ items: StoredPlaceTrigger[]; next: string | null }>;
  /** Every trigger of the app, in id order (backup, matching). */
  all(app: string): Maybe<StoredPlaceTrigger[]>;
  create(app: string, input: PlaceTriggerInput): Promise<StoredPlaceTrigger | undefined>;
  /** `fn` answers the new record from the old (it may throw a 400); undefined when the id is unknown. */
  update(app: string, id: string, fn: (old: StoredPlaceTrigger) => StoredPlaceTrigger): Promise<StoredPlaceTrigger | undefined>;
  delete(app: string, id: string): Promise<boolean>;
  /** Every trigger of the app gone (the app's deletion); answers how many. */
  dropApp(app: string): Promise<number>;
}

/** A page of records in id order after `after`; `next` is the last id when more may follow. */
export function page(sorted: StoredPlaceTrigger[], after: string | undefined, limit: number): { items: StoredPlaceTrigger[]; next: string | null } {
  const rest = after === undefined ? sorted : sorted.filter((r) => r.id > after);
  return rest.length > limit ? { items: rest.slice(0, limit), next: rest[limit - 1].id } : { items: rest, next: null };
}
