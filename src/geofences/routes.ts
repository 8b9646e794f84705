/**
 * The geofence endpoints of contract §4 (create, update, read, list, delete, import; the list also
 * by external_id and near a point). Each handler runs after handleSigned has verified
 * the signature and gets the route's params: the app in the path must be the signing app (403
 * otherwise), and a geofence of another app is simply not found (404), never revealed.
 */
import { DwellError } from '../errors.js';
import { pageLimit } from '../http/page-limit.js';
import type { GeofenceInput, GeofencePatch, GeofenceImportResult, GeofenceList, StoredGeofence } from '../schemas/geofence.js';
import { publicGeofence } from './public.js';
import { inflate } from '../http/body.js';
import { isGzip, readJson } from '../http/json-body.js';
import { ID_PATTERN, type ListQuery } from './store.js';
import { validateCreate, validateUpdate } from './validate.js';
import { parseImport, type ImportItem, type LineError } from './import.js';
import { bound, type AppHandler } from '../http/app-route.js';
import { checkImportType } from '../http/import-lines.js';
import { singleQuery } from '../http/query.js';
import type { NearPage, NearQuery } from './near.js';
import { nearQuery } from './near-query.js';

/** A route: method, pattern, handler, and the body's cap as sent when it is not the default. */
export type GeofenceRoute = [string, string, AppHandler, number?];

type Maybe<T> = T | Promise<T>;

/** What the routes ask of a store: the embedded GeofenceStore, or the cluster's (cluster-store.ts). */
export interface GeofenceApi {
  get(app: string, id: string): Maybe<StoredGeofence | undefined>;
  list(app: string, q: ListQuery): Maybe<{ items: StoredGeofence[]; next: string | null }>;
  create(app: string, input: GeofenceInput): Promise<StoredGeofence>;
  update(app: string, id: string, patch: GeofencePatch): Promise<StoredGeofence | undefined>;
  delete(app: string, id: string): Promise<boolean>;
  /** The live fence with this external_id, if any. */
  byExternalId(app: string, xid: string): Maybe<StoredGeofence | undefined>;
  /** The import's lines, each an update of the fence its external_id names or a create. */
  upsertMany(app: string, items: readonly ImportItem[]): Promise<{ created: number; updated: number; errors: LineError[] }>;
  near(app: string, q: NearQuery): Maybe<NearPage>;
}

/** An import as sent (gzip or not) and as inflated: 100,000 lines of a few hundred bytes each. */
export const IMPORT_SENT_BYTES = 64 << 20;
const IMPORT_INFLATED_BYTES = 128 << 20;

export interface GeofenceDeps { store: GeofenceApi }

const BASE = '/v2/apps/:app_key/geofences';

export function geofenceRoutes({ store }: GeofenceDeps): GeofenceRoute[] {
  return [
    ['POST', `${BASE}/import`, async (p, ex, app, raw) => {
      bound(p, app);
      checkImportType(ex);
      const bytes = isGzip(ex) ? await inflate(raw.bytes, IMPORT_INFLATED_BYTES) : raw.bytes;
      const { items, errors } = parseImport(bytes);
      const done = items.length ? await store.upsertMany(app.app_key, items) : { created: 0, updated: 0, errors: [] };
      const all = [...errors, ...done.errors].sort((a, b) => a.line - b.line);
      const out: GeofenceImportResult = { created: done.created, updated: done.updated, errors: all };
      return { status: 200, body: out };
    }, IMPORT_SENT_BYTES],
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
      const q = singleQuery(ex.query);
      const tag = q.get('tag') || undefined;
      const limit = pageLimit(q.get('limit'));
      if (q.has('near') || q.has('radius')) {
        const nq = nearQuery(q, tag, limit);
        return { status: 200, body: nearJson(await store.near(app.app_key, nq)), contentType: 'application/json' };
      }
      if (q.has('external_id')) {
        const xid = q.get('external_id') ?? '';
        if (xid === '' || xid.length > 256) throw new DwellError('invalid_request', `external_id is 1 to 256 characters, got ${JSON.stringify(xid)}`, '/external_id');
        const rec = await store.byExternalId(app.app_key, xid);
        const out: GeofenceList = { geofences: rec && (tag === undefined || rec.tag === tag) ? [publicGeofence(rec)] : [], next_cursor: null };
        return { status: 200, body: out };
      }
      const { items, next } = await store.list(app.app_key, { tag, after: cursorIn(q.get('cursor')), limit });
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

/**
 * A near page as NearGeofenceList's JSON, written from the items' cached JSON (near-cache.ts): the
 * same bytes as JSON.stringify of the list of `{ ...publicGeofence(rec), distance }`.
 */
export function nearJson(page: NearPage): string {
  let out = '{"geofences":[';
  for (let i = 0; i < page.items.length; i++) {
    const { json, distance } = page.items[i];
    out += `${i ? ',' : ''}${json},"distance":${JSON.stringify(distance)}}`;
  }
  const cursor = page.next === null ? null : Buffer.from(`${page.next.distance} ${page.next.id}`).toString('base64url');
  return `${out}],"next_cursor":${JSON.stringify(cursor)}}`;
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
