/**
 * An app's place triggers inside a detection thread, compiled (compile.ts) and cached until they
 * change, in either engine. Embedded: the data directory's place-triggers.mdb, whose per-app
 * change counter is one LMDB read per request. Cluster: a copy of the `dwell-place-triggers`
 * bucket that follows its watch (the thread's own connection, opened by the first task that
 * names NATS); `placesCurrent` lets a detection wait until the copy holds every trigger written
 * before it, as the fence copy does (state/nats/catch-up.ts).
 */
import type { KV } from '@nats-io/kv';
import type { StoredPlaceTrigger } from '../schemas/place-trigger.js';
import type { Watching } from '../state/types.js';
import type { VenueStore } from '../venues/store.js';
import { compileTriggers, type PlaceMatcher } from './compile.js';
import { allOf, openPlaceTriggerEnv, type PlaceTriggerEnv } from './lmdb-store.js';
import type { PlaceView } from './match.js';

interface Compiled { version: number | object; matcher: PlaceMatcher | undefined }

const envs = new Map<string, PlaceTriggerEnv>();
const compiled = new Map<string, Compiled>();

/** The embedded engine's view of an app's triggers; undefined when it has none. */
export function embeddedPlaces(dataDir: string, app: string, venues: VenueStore): PlaceView | undefined {
  let env = envs.get(dataDir);
  if (!env) envs.set(dataDir, (env = openPlaceTriggerEnv(dataDir)));
  // A thread's read snapshot may predate the main thread's latest commit.
  env.root.resetReadTxn();
  const version = env.seq.get(app) ?? 0;
  if (version === 0) return undefined;
  const e = env;
  const matcher = cached(`${dataDir}\u0000${app}`, version, () => allOf(e, app));
  return matcher && { matcher, venues };
}

function cached(key: string, version: number | object, read: () => StoredPlaceTrigger[]): PlaceMatcher | undefined {
  const c = compiled.get(key);
  if (c && c.version === version) return c.matcher;
  const triggers = read();
  const matcher = triggers.length ? compileTriggers(triggers) : undefined;
  compiled.set(key, { version, matcher });
  return matcher;
}

/** Cluster mode: the thread's copy of every app's triggers, by app; each app's map replaced on change (its identity is the version). */
class PlaceMirror {
  readonly byApp = new Map<string, Map<string, StoredPlaceTrigger>>();
  readonly versions = new Map<string, object>();
  readonly watching: Watching;
  constructor(follow: (on: (key: string, rec: StoredPlaceTrigger | undefined) => void) => Watching) {
    this.watching = follow((key, rec) => {
      const app = key.slice(0, key.indexOf('.'));
      const recs = new Map(this.byApp.get(app));
      if (rec) recs.set(rec.id, rec);
      else recs.delete(key.slice(app.length + 1));
      this.byApp.set(app, recs);
      this.versions.set(app, recs);
    });
  }
}

let mirror: Promise<PlaceMirror> | null = null;
/** The copy once open: what detection reads, synchronously, inside its commit. */
let open: PlaceMirror | undefined;
const CATCH_UP_MS = 2_000;

/** The cluster thread's copy, caught up with every trigger written before the call (at most CATCH_UP_MS late). */
export function placesCurrent(servers: readonly string[]): Promise<void> {
  mirror ??= (async () => {
    const [{ connectNats }, { bucket, decode, follow }, { PLACE_TRIGGERS_BUCKET }] = await Promise.all([
      import('../state/nats/connect.js'), import('../state/nats/kv.js'), import('./nats-store.js'),
    ]);
    const ns = await connectNats(servers, { name: 'dwell-place-triggers' });
    const kv: KV = await bucket(ns, PLACE_TRIGGERS_BUCKET);
    const m = new PlaceMirror((on) => follow(kv, (e) => on(e.key, decode<StoredPlaceTrigger>(e))));
    await m.watching.ready;
    open = m;
    return m;
  })().catch((err) => { mirror = null; throw err; });
  return mirror.then(async (m) => { await m.watching.caughtUp(CATCH_UP_MS); });
}

/** The cluster engine's view of an app's triggers (after placesCurrent); undefined when it has none. */
export function clusterPlaces(app: string, venues: VenueStore): PlaceView | undefined {
  const m = open;
  const recs = m?.byApp.get(app);
  if (!m || !recs || recs.size === 0) return undefined;
  const matcher = cached(`nats\u0000${app}`, m.versions.get(app)!, () => [...recs.values()].sort((a, b) => (a.id < b.id ? -1 : 1)));
  return matcher && { matcher, venues };
}

/** The view of the engine a task names: the cluster's copy, or the data directory's file. */
export function placeView(task: { state?: { kind: string } | null; dataDir: string }, app: string, venues: VenueStore): PlaceView | undefined {
  return task.state?.kind === 'nats' ? clusterPlaces(app, venues) : embeddedPlaces(task.dataDir, app, venues);
}

/** A thread's state once, in the cluster, its copy of the triggers is current too (an embedded thread's, as it is). */
export function withPlaces<T>(task: { state?: { kind: string; servers?: readonly string[] } | null }, t: T | Promise<T>): T | Promise<T> {
  const s = task.state;
  if (s?.kind !== 'nats' || !s.servers) return t;
  return Promise.all([t, placesCurrent(s.servers)]).then(([state]) => state);
}
