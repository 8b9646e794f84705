/**
 * One embedded node's side of the state contract (embedded.test.ts), on the production classes
 * state-embedded.ts and thread-embedded.ts open: AppRegistry (the HTTP thread's writer) and
 * AppSettings (the delivery worker's reader), users/store.ts (records and learned tables, the
 * detection threads' `modify`), the privacy engine's erase, GeofenceStore and the detection
 * threads' fence view, ReplayCache, the data directory's lock. Operations are named, with plain
 * arguments and answers, so the same ones run in this thread and in a worker thread opening the
 * same directory (embedded-worker.ts). Nothing here decides anything: each is one production call.
 */
import { performance } from 'node:perf_hooks';
import { AppRegistry } from '../../src/apps/registry.js';
import { AppSettings } from '../../src/delivery/app-settings.js';
import { openUserStore, type UserCommits } from '../../src/users/store.js';
import { emptyRecord } from '../../src/users/records.js';
import { DAY_MS } from '../../src/users/touch.js';
import { openPrivacyStores } from '../../src/privacy/stores.js';
import type { ErasedFromRecord, UserRecords } from '../../src/privacy/kinds.js';
import { GeofenceStore } from '../../src/geofences/store.js';
import { fenceView } from '../../src/geofences/worker.js';
import { ReplayCache } from '../../src/server/replay-cache.js';
import { lockDataDir } from '../../src/data-dir-lock.js';
import type { StoredGeofence } from '../../src/schemas/geofence.js';
import type { CreateApp } from '../../src/schemas/app.js';

export type Ops = ReturnType<typeof openOps>;
export type OpName = Exclude<keyof Ops, 'close'>;

export function openOps(dir: string) {
  let users: UserCommits | undefined;
  let fences: GeofenceStore | undefined;
  let records: UserRecords | undefined;
  let registry: Promise<AppRegistry> | undefined;
  let settings: AppSettings | undefined;
  let replays: ReplayCache | undefined;
  const u = () => (users ??= openUserStore(dir));
  const g = () => (fences ??= new GeofenceStore(dir, { noSync: true }));
  const apps = () => (registry ??= AppRegistry.embedded(dir, { secretGraceS: 60, allowPrivate: true }));
  const privacy = () => (records ??= openPrivacyStores(dir, g(), undefined as never, DAY_MS).records);
  const locks: Array<{ release(): void }> = [];
  return {
    /** A detection commit appending `id` to the record's counted ids; the step spins `spinMs` so two threads' steps overlap. */
    async usersBump(app: string, user: string, id: string, spinMs = 0): Promise<number> {
      u().fresh();
      return u().modify(app, user, (rec) => {
        const r = rec ?? emptyRecord();
        r.r.push(id);
        for (const end = performance.now() + spinMs; performance.now() < end;);
        return { record: r, result: r.r.length, aps: [] };
      });
    },
    async usersRead(app: string, user: string): Promise<string[] | null> {
      u().fresh();
      return u().read(app, user)?.r ?? null;
    },
    /** The erase of DELETE /v1/users (privacy/records.ts over this opening): how many records went. */
    async usersErase(app: string, user: string): Promise<number> {
      const out = { user_records: 0, visit_history_places: 0, past_stays: 0, open_stays: 0, geofence_presence: 0 } as ErasedFromRecord & { geofence_presence: number };
      await privacy().erase(app, user, out);
      return out.user_records;
    },
    /** App deletion's part in the users environment (privacy/records.ts): how many learned values went. */
    async learnedDropApp(app: string): Promise<number> {
      return (await privacy().deleteApp(app)).learned;
    },
    /** Adds a thread's pending kind priors (learned/tables.ts mergePriors); answers the stored sum. */
    async learnedPriors(app: string, add: number[]): Promise<number[]> {
      return [...u().mergePriors(app, Float64Array.from(add))];
    },
    async learnedTeach(app: string, bssid: string, lat: number, lon: number): Promise<void> {
      u().learn(app, [{ bssid, at: [lat, lon, 1] }]);
    },
    async learnedPlace(app: string, bssid: string): Promise<number[] | null> {
      u().fresh();
      return (u().apPlaces(app, [bssid])[0] as number[] | undefined) ?? null;
    },
    async appsCreate(name: string): Promise<string> {
      return (await (await apps()).create({ name, delivery: { method: 'sync' } } as CreateApp)).app.app_key;
    },
    async appsDelete(key: string): Promise<boolean> { return (await apps()).delete(key); },
    /** The delivery worker's read of an app (fresh: no cached answer). */
    async appsRead(key: string): Promise<string | null> {
      return (settings ??= new AppSettings(dir)).get(key, Date.now(), true)?.name ?? null;
    },
    async fencesPut(rec: StoredGeofence): Promise<void> { await g().putRecord(rec); },
    async fencesRetag(app: string, id: string, tag: string): Promise<string | null> {
      return (await g().modify(app, id, (f) => ({ ...f, tag })))?.tag ?? null;
    },
    async fencesRemove(app: string, id: string): Promise<boolean> { return g().delete(app, id); },
    async fencesGet(app: string, id: string): Promise<string | null> {
      g().root.resetReadTxn();
      return g().get(app, id)?.tag ?? null;
    },
    async fencesList(app: string, limit: number, after?: string, tag?: string): Promise<{ ids: string[]; next: string | null }> {
      g().root.resetReadTxn();
      const l = g().list(app, { limit, after, tag });
      return { ids: l.items.map((f) => f.id), next: l.next };
    },
    /** What a detection thread's fence view (geofences/worker.ts) holds of a fence: its tag, or null. */
    async fencesViewed(app: string, id: string): Promise<string | null> {
      return fenceView(dir, app)?.info(id)?.tag ?? null;
    },
    /** The signed-request walk's replay check then record (server/signed.ts). */
    async replayAccept(app: string, sig: string, ts: number): Promise<void> {
      replays ??= new ReplayCache(dir);
      replays.check(app, sig);
      await replays.record(app, sig, ts);
    },
    async lock(): Promise<void> { locks.push(lockDataDir(dir)); },
    async close(): Promise<void> {
      for (const l of locks) l.release();
      await replays?.close();
      if (registry) await (await registry).close();
      await fences?.close();
      users?.close();
    },
  };
}
