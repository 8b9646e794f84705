/**
 * The beacon registry's endpoints (contract §9), as the geofence ones (geofences/routes.ts):
 * each runs after handleSigned verified the signature; the app in the path must be the signing
 * app (403), and another app's beacon is simply not found (404), never revealed.
 */
import { DwellError } from '../errors.js';
import { pageLimit } from '../http/page-limit.js';
import type { BeaconList, BeaconRecord, ImportResult, StoredBeacon } from '../schemas/beacon.js';
import { MAX_INFLATED_BYTES, inflate } from '../http/body.js';
import { isGzip, readJson } from '../http/json-body.js';
import { ID_PATTERN, type BeaconStore } from './store.js';
import { validateCreate, validateUpdate } from './validate.js';
import { parseImport } from './import.js';
import { bound, type AppHandler } from '../http/app-route.js';
import { checkImportType } from '../http/import-lines.js';
import { singleQuery } from '../http/query.js';

export interface BeaconDeps {
  store: BeaconStore;
  /** Whether a venue id is in the served store; null while no store is loaded. */
  venueKnown: () => ((id: string) => boolean) | null;
}

const BASE = '/v2/apps/:app_key/beacons';
/** An import as sent (gzip or not) and inflated: 100,000 lines of a few hundred bytes. */
export const IMPORT_SENT_BYTES = 32 << 20;
const IMPORT_INFLATED_BYTES = Math.max(MAX_INFLATED_BYTES, 64 << 20);

export function beaconRoutes({ store, venueKnown }: BeaconDeps): Array<[string, string, AppHandler]> {
  const known = (): ((id: string) => boolean) => {
    const k = venueKnown();
    if (!k) throw new DwellError('unavailable', 'the venue store is still loading', undefined, 1);
    return k;
  };
  const checkVenue = (id: string | null | undefined) => {
    if (id && !known()(id)) throw new DwellError('invalid_request', `venue_id ${JSON.stringify(id)} is not a venue of the served store`, '/venue_id');
  };
  return [
    ['POST', `${BASE}/create`, async (p, ex, app, raw) => {
      bound(p, app);
      const input = validateCreate(await readJson(ex, raw));
      checkVenue(input.venue_id);
      return { status: 200, body: (await store.create(app.app_key, input)).id };
    }],
    ['POST', `${BASE}/import`, async (p, ex, app, raw) => {
      bound(p, app);
      checkImportType(ex);
      const bytes = isGzip(ex) ? await inflate(raw.bytes, IMPORT_INFLATED_BYTES) : raw.bytes;
      const { items, errors } = parseImport(bytes, known());
      const { created, updated } = items.length ? await store.upsertMany(app.app_key, items) : { created: 0, updated: 0 };
      const out: ImportResult = { created, updated, errors };
      return { status: 200, body: out };
    }],
    ['POST', `${BASE}/:id/update`, async (p, ex, app, raw) => {
      bound(p, app);
      const patch = validateUpdate(await readJson(ex, raw));
      checkVenue(patch.venue_id);
      const rec = ID_PATTERN.test(p.id) ? await store.update(app.app_key, p.id, patch) : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: rec.id };
    }],
    ['GET', `${BASE}/:id`, async (p, _ex, app) => {
      bound(p, app);
      await store.settle();
      const rec = ID_PATTERN.test(p.id) ? store.get(app.app_key, p.id) : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: publicBeacon(rec) };
    }],
    ['GET', BASE, async (p, ex, app) => {
      bound(p, app);
      const q = singleQuery(ex.query);
      await store.settle();
      const { items, next } = store.list(app.app_key, { tag: q.get('tag') || undefined, after: cursorIn(q.get('cursor')), limit: pageLimit(q.get('limit')) });
      const out: BeaconList = { beacons: items.map(publicBeacon), next_cursor: next === null ? null : Buffer.from(next).toString('base64url') };
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
export const publicBeacon = (r: StoredBeacon): BeaconRecord => ({
  id: r.id, uuid: r.uuid, major: r.major, minor: r.minor, venue_id: r.venue_id, location: r.location, tag: r.tag,
  created_at: r.created_at, updated_at: r.updated_at,
});

const notFound = (id: string) => new DwellError('not_found', `no beacon ${JSON.stringify(id)} in this app (never created, or deleted)`);

function cursorIn(raw: string | null): string | undefined {
  if (raw === null || raw === '') return undefined;
  const id = Buffer.from(raw, 'base64url').toString();
  if (!ID_PATTERN.test(id)) throw new DwellError('invalid_request', `cursor is the next_cursor of a previous page, got ${JSON.stringify(raw)}`, '/cursor');
  return id;
}
