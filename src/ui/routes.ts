/**
 * The explorer (issue 19): its page under /ui, served to anyone (it holds no data), and the
 * admin calls it makes with the operator's token: apps, their recent detections, an explanation
 * of a detect body (with what its integrity flags rest on), their geofences and place triggers,
 * and a venue search. Explanations run in a detection worker
 * (pipeline/explain.ts) on the same venue store and user state as /v1/detect, storing nothing.
 */
import type { StateTarget } from '../config.js';
import { DwellError } from '../errors.js';
import { readBody, MAX_SENT_BYTES } from '../http/body.js';
import { checkMediaType, isGzip } from '../http/json-body.js';
import type { Exchange, Reply } from '../http/reply.js';
import type { AppRegistry } from '../apps/registry.js';
import { publicApp, taskApp, type AppRecord } from '../schemas/app.js';
import type { GeofenceApi } from '../geofences/routes.js';
import { publicTrigger, type PlaceTriggerApi } from '../place-triggers/records.js';
import { openStore, type StoreHandle } from '../venues/store.js';
import type { RecentDetections } from '../recent/types.js';
import type { ExplainResult, ExplainTask } from '../pipeline/explain.js';
import { serveStatic } from './static.js';
import { parseVenueQuery, searchVenues } from './venue-search.js';
import { clock } from '../time/clock.js';

export interface ExplorerDeps {
  apps: AppRegistry; recent: RecentDetections; geofences: GeofenceApi;
  /** The app's place triggers (contract §11), listed read-only beside its detections. */
  placeTriggers: Pick<PlaceTriggerApi, 'all'>;
  /** Runs an explanation in a detection worker (server/pool.ts), handed in so the explorer does not import the server. */
  explain: (task: ExplainTask) => Promise<ExplainResult>;
  /** Throws unless the request carries the admin token (server/admin.ts checkBearer). */
  checkAdmin: (ex: Exchange) => void;
  store: () => StoreHandle | null; dataDir: string; tiles: string;
  /** Where user state lives (config.state): an explanation reads the same as a detection. */
  state: StateTarget;
}

type Handler = (ex: Exchange, params: Record<string, string>) => void;
type Call = (ex: Exchange, params: Record<string, string>, body: Buffer | null) => Promise<Reply> | Reply;

/** Bearer first, then the body (attached synchronously, as uWS wants), then the call. */
const admin = (deps: ExplorerDeps, call: Call, bodyLimit = 0): Handler => (ex, params) => {
  try {
    deps.checkAdmin(ex);
    if (bodyLimit) checkMediaType(ex); // contract §5: refused before the body is read
  } catch (err) {
    return ex.fail(err);
  }
  const body = bodyLimit ? readBody(ex, bodyLimit).then((b) => b.bytes) : Promise.resolve(null);
  body.then((b) => call(ex, params, b)).then((r) => ex.send(r), (err) => ex.fail(err));
};

const open = (ex: Exchange, r: () => Reply) => { try { ex.send(r()); } catch (err) { ex.fail(err); } };

function appOf(apps: AppRegistry, key: string): AppRecord {
  const app = apps.get(key);
  if (!app) throw new DwellError('not_found', `no app with key ${JSON.stringify(key)}`);
  return app;
}

function limitOf(query: string, max: number, fallback: number): number {
  const raw = new URLSearchParams(query).get('limit');
  const n = raw === null ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new DwellError('invalid_request', `limit is an integer from 1 to ${max}`, '/limit');
  return n;
}

const storeOf = (deps: ExplorerDeps) => {
  const h = deps.store();
  if (!h) throw new DwellError('unavailable', 'the venue store is still loading', undefined, 2);
  return h;
};

export function explorerRoutes(deps: ExplorerDeps): Array<[string, string, Handler]> {
  return [
    ['GET', '/ui', (ex) => open(ex, () => serveStatic(ex, 'index.html', deps.tiles))],
    ['GET', '/ui/:file', (ex, p) => open(ex, () => serveStatic(ex, p.file, deps.tiles))],
    ['GET', '/admin/apps', admin(deps, () => ({ status: 200, body: { apps: deps.apps.list().map(publicApp) } }))],
    ['GET', '/admin/apps/:key/recent', admin(deps, async (ex, p) => {
      appOf(deps.apps, p.key);
      const detections = await deps.recent.list(p.key, limitOf(ex.query, 1000, 100));
      return { status: 200, body: { app_key: p.key, kept: deps.recent.wants(p.key), count: detections.length, detections } };
    })],
    ['GET', '/admin/apps/:key/recent/:id', admin(deps, async (_ex, p) => {
      appOf(deps.apps, p.key);
      const d = await deps.recent.get(p.key, p.id);
      if (!d) throw new DwellError('not_found', `no recent detection ${JSON.stringify(p.id)} (gone past the count or age limit, or erased)`);
      return { status: 200, body: d };
    })],
    ['POST', '/admin/apps/:key/explain', admin(deps, async (ex, p, body) => {
      const app = appOf(deps.apps, p.key);
      const out = await deps.explain({
        body: body!, gzip: isGzip(ex), app: taskApp(app),
        store: storeOf(deps), dataDir: deps.dataDir, state: deps.state, now: clock.now(),
      });
      if (!out.ok) throw DwellError.fromJSON(out.error);
      return { status: 200, body: { app_key: app.app_key, ...out.explanation } };
    }, MAX_SENT_BYTES)],
    ['GET', '/admin/apps/:key/geofences', admin(deps, async (ex, p) => {
      appOf(deps.apps, p.key);
      const after = new URLSearchParams(ex.query).get('cursor') ?? undefined;
      // The signed routes' store: the cluster's fences in cluster mode, as on every node.
      const { items, next } = await deps.geofences.list(p.key, { after, limit: limitOf(ex.query, 10_000, 1000) });
      return { status: 200, body: { geofences: items, next_cursor: next } };
    })],
    ['GET', '/admin/apps/:key/place-triggers', admin(deps, async (_ex, p) => {
      appOf(deps.apps, p.key);
      // At most 100 an app (contract §11): one page, no cursor.
      return { status: 200, body: { place_triggers: (await deps.placeTriggers.all(p.key)).map(publicTrigger), next_cursor: null } };
    })],
    ['GET', '/admin/venues', admin(deps, (ex) => {
      const h = storeOf(deps);
      return { status: 200, body: { store: h.id, ...searchVenues(openStore(h), parseVenueQuery(ex.query)) } };
    })],
  ];
}
