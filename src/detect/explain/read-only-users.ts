/**
 * A user store that reads like the real one and writes nothing: an explanation runs the real
 * detection (so the same ranking), and must neither add a visit to the user's history nor teach
 * the app's learned tables. Updates run on a fresh copy of the record and are dropped; merges of
 * learned counts answer the stored sum plus what this run counted, as the real merge would,
 * without storing it. One per explanation: the learned tables of detect/evidence key their
 * in-memory counts by the store object, so a fresh one starts from what is stored.
 */
import type { UserStore } from '../../users/store.js';
import type { UserRecord } from '../../users/records.js';
import { emptyRecord } from '../../users/records.js';

export function readOnlyUsers(real: UserStore): UserStore {
  return {
    read: (app, user) => real.read(app, user),
    update: (app, user, fn) => fn((real.read(app, user) as UserRecord | undefined) ?? emptyRecord()).result,
    learn: () => {},
    fresh: () => real.fresh(),
    close: () => {},
    apPlaces: (app, bssids) => real.apPlaces(app, bssids),
    pooledAps: (app, bssids) => real.pooledAps(app, bssids),
    learnedBeacons: (app, keys) => real.learnedBeacons(app, keys),
    mergePriors(app, pending) {
      // An all-zero merge writes nothing (learned/tables.ts) and answers what is stored.
      const out = real.mergePriors(app, new Float64Array(pending.length));
      for (let i = 0; i < out.length; i++) out[i] += pending[i];
      return out;
    },
    mergeSparse(name, app, pending) {
      const out = real.mergeSparse(name, app, new Map());
      for (const [k, v] of pending) out.set(k, (out.get(k) ?? 0) + v);
      return out;
    },
  };
}
