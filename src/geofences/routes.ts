/**
 * The five geofence endpoints of contract §4. Each handler runs after handleSigned has verified
 * the signature and gets the route's params: the app in the path must be the signing app (403
 * otherwise), and a geofence of another app is simply not found (404), never revealed.
 */
import { DwellError } from '../errors.js';
import { pageLimit } from '../http/page-limit.js';
import type { AppRecord } from '../schemas/app.js';
import type { GeofenceList, GeofenceRecord, StoredGeofence } from '../schemas/geofence.js';
import type { RawBody } from '../http/body.js';
import { readJson } from '../http/json-body.js';
import type { Exchange, Reply } from '../http/reply.js';
import { ID_PATTERN, type GeofenceStore, type ListQuery } from './store.js';
import { validateCreate, validateUpdate } from './validate.js';

export type GeofenceHandler = (params: Record<string, string>, ex: Exchange, app: AppRecord, raw: RawBody) => Promise<Reply>;

type Maybe<T> = T | Promise<T>;

/** What the routes ask of a store: the embedded GeofenceStore, or the cluster's (cluster-store.ts). */
export interface GeofenceApi {
  get(app: string, id: string): Maybe<StoredGeofence | undefined>;
  list(app: string, q: ListQuery): Maybe<{ items: StoredGeofence[]; next: string | null }>;
  create: GeofenceStore['create'];
  update: GeofenceStore['update'];
  delete: GeofenceStore['delete'];
}

export interface GeofenceDeps { store: GeofenceApi }

const BASE = '/v2/apps/:app_key/geofences';

export function geofenceRoutes({ store }: GeofenceDeps): Array<[string, string, GeofenceHandler]> {
  return [
    ['POST', `${BASE}/create`, async (p, ex, app, raw) => {
      bound(p, app);
      const rec = await store.create(app.app_key, validateCreate(await readJson(ex, raw)));
      return { status: 200, body: rec.id };
    }],
    ['POST', `${BASE}/:id/update`, async (p, ex, app, raw) => {
      bound(p, app);
      const patch = validateUpdate(await readJson(ex, raw));
      const rec = ID_PATTERN.test(p.id) ? await store.update(app.app_key, p.id, patch) : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: rec.id };
    }],
    ['GET', `${BASE}/:id`, async (p, _ex, app) => {
      bound(p, app);
      const rec = ID_PATTERN.test(p.id) ? await store.get(app.app_key, p.id) : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: publicGeofence(rec) };
    }],
    ['GET', BASE, async (p, ex, app) => {
      bound(p, app);
      const q = new URLSearchParams(ex.query);
      const tag = q.get('tag') || undefined;
      const { items, next } = await store.list(app.app_key, { tag, after: cursorIn(q.get('cursor')), limit: pageLimit(q.get('limit')) });
      const out: GeofenceList = { geofences: items.map(publicGeofence), next_cursor: next === null ? null : cursorOut(next) };
      return { status: 200, body: out };
    }],
    ['POST', `${BASE}/:id/delete`, async (p, _ex, app) => {
      bound(p, app);
      if (!ID_PATTERN.test(p.id) || !(await store.delete(app.app_key, p.id))) throw notFound(p.id);
      return { status: 200, body: p.id };
    }],
  ];
}

/** The record as customers read it: no app key, fields in contract order. */
export function publicGeofence(r: StoredGeofence): GeofenceRecord {
  return {
    id: r.id, tag: r.tag, location: r.location, ttl: r.ttl, push_text: r.push_text,
    created_at: r.created_at, updated_at: r.updated_at, expires_at: r.expires_at,
  };
}

export function bound(p: Record<string, string>, app: AppRecord): void {
  if (p.app_key !== app.app_key) {
    throw new DwellError('forbidden', `the app key in the path must be the signing app's (${app.app_key}), got ${JSON.stringify(p.app_key)}`);
  }
}

const notFound = (id: string) => new DwellError('not_found', `no geofence ${JSON.stringify(id)} in this app (never created, deleted, or expired)`);



/** Opaque to callers: the last id of the previous page, base64url. */
const cursorOut = (id: string) => Buffer.from(id).toString('base64url');

function cursorIn(raw: string | null): string | undefined {
  if (raw === null || raw === '') return undefined;
  const id = Buffer.from(raw, 'base64url').toString();
  if (!ID_PATTERN.test(id)) throw new DwellError('invalid_request', `cursor is the next_cursor of a previous page, got ${JSON.stringify(raw)}`, '/cursor');
  return id;
}
