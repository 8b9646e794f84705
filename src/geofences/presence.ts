/**
 * Per-user presence (the fences a user is inside) in the geofence environment, database
 * `presence`, key [app, user]. Most fixes change nothing, so the evaluation runs on a snapshot
 * first and only a change takes the write lock; inside it the record is read again and, if
 * another request of the same user got there first, evaluated again on the fresh state, so two
 * concurrent requests never both report the same entry.
 */
import type { Database } from 'lmdb';
import type { GeofenceStore } from './store.js';
import { NO_PRESENCE, type Evaluation, type Presence } from './events.js';

const dbs = new WeakMap<GeofenceStore, Database<Presence, [string, string]>>();

export function presenceDb(store: GeofenceStore): Database<Presence, [string, string]> {
  let db = dbs.get(store);
  if (!db) dbs.set(store, (db = store.root.openDB<Presence, [string, string]>({ name: 'presence' })));
  return db;
}

export function readPresence(store: GeofenceStore, app: string, user: string): Presence {
  return presenceDb(store).get([app, user]) ?? NO_PRESENCE;
}

export function withPresence(store: GeofenceStore, app: string, user: string, run: (p: Presence) => Evaluation): Evaluation {
  const db = presenceDb(store);
  const seen = db.get([app, user]) ?? NO_PRESENCE;
  const first = run(seen);
  if (!first.changed) return first;
  return store.root.transactionSync(() => {
    const now = db.get([app, user]) ?? NO_PRESENCE;
    const out = same(now, seen) ? first : run(now);
    if (out.changed) db.putSync([app, user], out.presence);
    return out;
  });
}

const same = (a: Presence, b: Presence) =>
  a.last === b.last && a.inside.length === b.inside.length && a.inside.every((id, i) => id === b.inside[i]);
