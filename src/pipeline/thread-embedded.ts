/**
 * A detection thread's state in the embedded engine (thread-state.ts): the users environment
 * (records and learned tables, shared by every thread of the process through lmdb-js), geofences
 * and beacons of the data directory, all synchronous. A commit is one write transaction holding
 * the record and what the run taught (users/store.ts `modify`). Presence stays in the geofence
 * environment's own database (geofences/presence.ts), written after the record when it changes.
 */
import { openUserStore, type UserCommits } from '../users/store.js';
import { EmbeddedUserView } from '../users/view.js';
import type { Versions } from '../learned/cache.js';
import { fenceView, presenceStep } from '../geofences/worker.js';
import { beaconView } from '../beacons/lookup.js';
import type { GeofenceEvent } from '../schemas/visit.js';
import type { ThreadState } from './thread-types.js';

const threads = new Map<string, { users: UserCommits; view: EmbeddedUserView; state: ThreadState }>();

export function embeddedThread(dataDir: string, versions: Versions): ThreadState {
  let t = threads.get(dataDir);
  if (!t) {
    // noSync: a commit still survives a crash of this process (it is in the OS page cache); only
    // an OS crash could lose the last moments of history, which costs a prior, never a trigger.
    // Waiting for the disk on every request cost two thirds of a worker's time (bench:http).
    const users = openUserStore(dataDir, { noSync: true, versions });
    const view = new EmbeddedUserView(users);
    t = { users, view, state: embeddedState(dataDir, users, view) };
    threads.set(dataDir, t);
  }
  t.users.fresh();
  return t.state;
}

function embeddedState(dataDir: string, users: UserCommits, view: EmbeddedUserView): ThreadState {
  return {
    users: view,
    commit(app, who, detect, presence) {
      if (who === null) {
        const run = view.run(app, null, undefined, detect);
        users.teach(app, run.aps);
        return { result: run.result, events: [] };
      }
      const result = users.modify(app, who, (rec) => {
        const run = view.run(app, who, rec, detect);
        return { record: run.changed ? run.record : undefined, result: run.result, aps: run.aps };
      });
      let events: GeofenceEvent[] = [];
      // Most apps have no fences: no presence read for them.
      if (fenceView(dataDir, app)) {
        events = presenceStep(dataDir, app, who, presence).events;
        // Presence is kept as long as the user's record (privacy/retention.ts): a change of it touches the record.
        if (events.length) users.update(app, who, (rec) => ({ record: rec, result: undefined }));
      }
      return { result, events };
    },
    peek: (app, who, detect) => view.run(app, who, who === null ? undefined : users.read(app, who), detect).result,
    fences: (app) => fenceView(dataDir, app),
    beacons: (app) => beaconView(dataDir, app),
  };
}
