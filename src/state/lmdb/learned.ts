/**
 * Learned values in the embedded users environment, under the keys learned/tables.ts uses
 * (['apx', app, bssid], ['pv', app, bssid], ['bl', app, beacon], ['kp', app], ['ks', name, app]).
 *
 * The detection threads cache access points' places, pooled networks and learned beacons against
 * the process's version table (learned/cache.ts): a merge made here publishes the key's slot once
 * it has committed, as their own writes do, so that what feedback teaches through the kit is read
 * by every thread at its next task.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { LearnedKey, LearnedState } from '../types.js';
import { LearnedCache, type Versions } from '../../learned/cache.js';
import { setImmediate as yieldTurn } from 'node:timers/promises';

/** Keys removed per write transaction when an app goes: the thread is never held long. */
const BATCH = 2000;

const lmdbKey = ([kind, app, name]: LearnedKey): unknown[] =>
  kind === 'kp' ? ['kp', app] : kind.startsWith('ks:') ? ['ks', kind.slice(3), app] : [kind, app, name];

/** The kinds the detection threads cache (learned/tables.ts), each keyed to its slots as they do. */
const CACHED = ['apx', 'pv', 'bl'] as const;

export function lmdbLearned(db: RootDatabase, versions?: Versions): LearnedState {
  // Only their `slot` is used: the slot of a key as the threads' caches of that kind compute it.
  const slots = versions && new Map(CACHED.map((kind) => [kind as string, new LearnedCache(versions, 0, kind)]));
  const publish = ([kind, app, name]: LearnedKey) => {
    const cache = slots?.get(kind);
    if (cache) LearnedCache.published(versions!, [cache.slot(app, name)]);
  };
  return {
    peek: <V>(key: LearnedKey) => db.get(lmdbKey(key) as never) as V | undefined,
    merge: async <V>(key: LearnedKey, fn: (old: V | undefined) => V | undefined) => {
      const wrote = db.transactionSync(() => {
        const k = lmdbKey(key) as never;
        const next = fn(db.get(k) as V | undefined);
        if (next !== undefined) db.putSync(k, next);
        return next !== undefined;
      });
      if (wrote) publish(key);
    },
    async dropApp(app) {
      let n = 0;
      for (const kind of CACHED) n += await drain(db, [kind, app], [kind, app + '\u0000']);
      db.transactionSync(() => {
        if (db.removeSync(['kp', app] as never)) n++;
        for (const k of [...db.getKeys({ start: ['ks'] as never, end: ['ks\u0000'] as never })]) if ((k as string[])[2] === app && db.removeSync(k)) n++;
      });
      // Not published: a thread may keep a dropped value cached, but the app's key is refused
      // from now on (apps go first: privacy/delete-app.ts), so nothing asks for it again.
      return n;
    },
  };
}

/** Removes every key in [start, end), a batch per write transaction; answers how many. */
async function drain(db: Database, start: unknown[], end: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    db.resetReadTxn();
    const keys = [...db.getKeys({ start: start as never, end: end as never, limit: BATCH })];
    if (keys.length === 0) return total;
    db.transactionSync(() => { for (const k of keys) db.removeSync(k); });
    total += keys.length;
    await yieldTurn();
  }
}
