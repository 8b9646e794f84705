/**
 * A detection thread's state in the embedded engine (thread-state.ts): the users environment
 * (records and learned tables, shared by every thread of the process through lmdb-js), geofences
 * and beacons of the data directory, all synchronous. A commit is one write transaction holding
 * the record, the user's presence in it (users/presence.ts) and what the run taught
 * (users/store.ts `modify`).
 */
import { openUserStore, type Prepared, type UserCommits } from '../users/store.js';
import { EmbeddedUserView } from '../users/view.js';
import type { Versions } from '../learned/cache.js';
import { fenceView } from '../geofences/worker.js';
import { beaconView } from '../beacons/lookup.js';
import { emptyRecord, presenceOf, setPresence, type UserRecord } from '../users/records.js';
import { noEvents } from '../users/presence.js';
import type { ThreadState } from './thread-types.js';
import { Later } from './later.js';

const threads = new Map<string, { users: UserCommits; view: EmbeddedUserView; state: ThreadState }>();

export function embeddedThread(dataDir: string, versions: Versions): ThreadState {
  let t = threads.get(dataDir);
  if (!t) {
    // Without fsync at commit (users/env-options.ts): a kill -9 loses nothing.
    const users = openUserStore(dataDir, { versions });
    const view = new EmbeddedUserView(users);
    t = { users, view, state: embeddedState(dataDir, users, view) };
    threads.set(dataDir, t);
  }
  t.users.fresh();
  return t.state;
}

function embeddedState(dataDir: string, users: UserCommits, view: EmbeddedUserView): ThreadState {
  /** The batch being gathered (together): each commit's prepared write and what it settles. */
  let gathering: Array<{ prepared: Prepared<unknown>; later: Later<unknown> }> | null = null;
  const later = <T>(prepared: Prepared<T>): Later<T> => {
    const l = new Later<T>();
    gathering!.push({ prepared, later: l as Later<unknown> });
    return l;
  };
  return {
    users: view,
    commit(app, who, detect, presence) {
      if (who === null) {
        const run = view.run(app, null, undefined, detect);
        const result = { result: run.result, events: noEvents() };
        if (!gathering) {
          users.teach(app, run.aps);
          return result;
        }
        const taught = users.prepareTeach(app, run.aps);
        return later({ writes: taught.writes, apply: () => { taught.apply(); return result; } });
      }
      const step = (rec: UserRecord | undefined) => {
        const run = view.run(app, who, rec, detect);
        let record = run.changed ? run.record : undefined;
        // On the record as the run left it (a fresh decode: ours to change), committed with it.
        const ev = presence(presenceOf(run.record));
        if (ev.changed) record = setPresence(run.record ?? emptyRecord(), ev.presence);
        return { record, result: { result: run.result, events: ev.events }, aps: run.aps };
      };
      return gathering ? later(users.prepare(app, who, step)) : users.modify(app, who, step);
    },
    together(runs) {
      gathering = [];
      let out: ReturnType<typeof runs>;
      let batch: NonNullable<typeof gathering>;
      try {
        out = runs();
      } catch (error) {
        for (const b of gathering!) b.later.reject(error);
        throw error;
      } finally {
        batch = gathering;
        gathering = null;
      }
      // One write transaction for every commit of the batch; each answer settles after it.
      let applied: ReturnType<typeof users.commitAll>;
      try {
        applied = users.commitAll(batch.map((b) => b.prepared));
      } catch (error) {
        // The transaction itself failed: nothing of the batch is stored, every commit of it says so.
        for (const b of batch) b.later.reject(error);
        return out;
      }
      for (let i = 0; i < batch.length; i++) {
        const a = applied[i];
        if (a.ok) batch[i].later.resolve(a.value);
        else batch[i].later.reject(a.error);
      }
      return out;
    },
    peek: (app, who, detect) => view.run(app, who, who === null ? undefined : users.read(app, who), detect).result,
    fences: (app) => fenceView(dataDir, app),
    beacons: (app) => beaconView(dataDir, app),
  };
}
