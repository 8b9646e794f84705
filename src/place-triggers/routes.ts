/**
 * The five place-trigger endpoints of contract §11, shaped as the geofence ones (§4): signed,
 * the app in the path must be the signing app (403), another app's trigger is simply not found.
 */
import { DwellError } from '../errors.js';
import { pageLimit } from '../http/page-limit.js';
import { readJson } from '../http/json-body.js';
import { bound, type AppHandler } from '../http/app-route.js';
import { singleQuery } from '../http/query.js';
import { PLACE_LIMITS, type PlaceTriggerList } from '../schemas/place-trigger.js';
import { clock } from '../time/clock.js';
import { ID_PATTERN, patchedTrigger, publicTrigger, type PlaceTriggerApi } from './records.js';
import { needsMatch, validateCreate, validateUpdate } from './validate.js';

const BASE = '/v2/apps/:app_key/place-triggers';

export function placeTriggerRoutes(store: PlaceTriggerApi, now: () => number = clock.now): Array<[string, string, AppHandler]> {
  return [
    ['POST', `${BASE}/create`, async (p, ex, app, raw) => {
      bound(p, app);
      const rec = await store.create(app.app_key, validateCreate(await readJson(ex, raw)));
      if (!rec) throw new DwellError('conflict', `an app has at most ${PLACE_LIMITS.perApp} place triggers; delete one to make room`);
      return { status: 200, body: rec.id };
    }],
    ['POST', `${BASE}/:id/update`, async (p, ex, app, raw) => {
      bound(p, app);
      const patch = validateUpdate(await readJson(ex, raw));
      const rec = ID_PATTERN.test(p.id)
        ? await store.update(app.app_key, p.id, (old) => { const next = patchedTrigger(old, patch, now()); needsMatch(next); return next; })
        : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: rec.id };
    }],
    ['GET', `${BASE}/:id`, async (p, _ex, app) => {
      bound(p, app);
      const rec = ID_PATTERN.test(p.id) ? await store.get(app.app_key, p.id) : undefined;
      if (!rec) throw notFound(p.id);
      return { status: 200, body: publicTrigger(rec) };
    }],
    ['GET', BASE, async (p, ex, app) => {
      bound(p, app);
      const q = singleQuery(ex.query);
      const { items, next } = await store.list(app.app_key, { after: cursorIn(q.get('cursor')), limit: pageLimit(q.get('limit')) });
      const out: PlaceTriggerList = { place_triggers: items.map(publicTrigger), next_cursor: next === null ? null : Buffer.from(next).toString('base64url') };
      return { status: 200, body: out };
    }],
    ['POST', `${BASE}/:id/delete`, async (p, _ex, app) => {
      bound(p, app);
      if (!ID_PATTERN.test(p.id) || !(await store.delete(app.app_key, p.id))) throw notFound(p.id);
      return { status: 200, body: p.id };
    }],
  ];
}

const notFound = (id: string) => new DwellError('not_found', `no place trigger ${JSON.stringify(id)} in this app (never created, or deleted)`);

/** Opaque to callers: the last id of the previous page, base64url. */
function cursorIn(raw: string | null): string | undefined {
  if (raw === null || raw === '') return undefined;
  const id = Buffer.from(raw, 'base64url').toString();
  if (!ID_PATTERN.test(id)) throw new DwellError('invalid_request', `cursor is the next_cursor of a previous page, got ${JSON.stringify(raw)}`, '/cursor');
  return id;
}
