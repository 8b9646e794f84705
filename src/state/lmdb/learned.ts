/**
 * Learned values in the embedded users environment, under the keys learned/tables.ts uses
 * (['apx', app, bssid], ['pv', app, bssid], ['bl', app, beacon], ['kp', app], ['ks', name, app]).
 */
import type { RootDatabase } from 'lmdb';
import type { LearnedKey, LearnedState } from '../types.js';

const lmdbKey = ([kind, app, name]: LearnedKey): unknown[] =>
  kind === 'kp' ? ['kp', app] : kind.startsWith('ks:') ? ['ks', kind.slice(3), app] : [kind, app, name];

export function lmdbLearned(db: RootDatabase): LearnedState {
  return {
    peek: <V>(key: LearnedKey) => db.get(lmdbKey(key) as never) as V | undefined,
    merge: async <V>(key: LearnedKey, fn: (old: V | undefined) => V | undefined) => {
      db.transactionSync(() => {
        const k = lmdbKey(key) as never;
        const next = fn(db.get(k) as V | undefined);
        if (next !== undefined) db.putSync(k, next);
      });
    },
    dropApp: async (app) => db.transactionSync(() => {
      let n = 0;
      const ranges: Array<[unknown[], unknown[]]> = [[['apx', app], ['apx', app + '\u0000']], [['pv', app], ['pv', app + '\u0000']], [['bl', app], ['bl', app + '\u0000']]];
      for (const [start, end] of ranges) for (const k of [...db.getKeys({ start: start as never, end: end as never })]) { db.removeSync(k); n++; }
      if (db.removeSync(['kp', app] as never)) n++;
      for (const k of [...db.getKeys({ start: ['ks'] as never, end: ['ks\u0000'] as never })]) if ((k as string[])[2] === app && db.removeSync(k)) n++;
      return n;
    }),
  };
}
