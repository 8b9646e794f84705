/**
 * Learned values in one KV bucket (`dwell-learned`), key `<kind>.<app>.<name>` (kind and name as
 * tokens).
 *
 * Design: every process that detects keeps a full copy of the bucket in memory, fed by a watch
 * (`follow`). A request reads dozens of access points; a round trip for each would cost more than
 * the detection itself, and the values only ever grow by merges whose exact latest value does not
 * change an answer (a place that is a few stays behind ranks the same). So reads are local and
 * a node sees another's merge within the watch's delay (milliseconds). Writes are exact: merge,
 * write with the expected revision, again on a conflict; so two nodes adding to one value never
 * lose an addition. A thread that follows the bucket merges first into its own copy, with that
 * copy's revision: most merges of a busy app change a value already saturated (fn answers
 * undefined) and then cost no round trip at all, and the rest cost one write instead of a read
 * and a write (bench:cluster found ~20 reads a request that stored nothing). A stale copy only
 * costs a conflict and a second round that reads. Memory: the whole table once per detection thread
 * (an access point's place is about 100 bytes; a million of them is about 100 MB a thread):
 * beyond that, shard the cache by app.
 */
import type { KV } from '@nats-io/kv';
import type { LearnedKey, LearnedState } from '../types.js';
import { decode, encode, follow, guard, isConflict, keysOf, token } from './kv.js';

const MAX_ROUNDS = 64;

export function natsLearned(kv: KV): LearnedState & { ready: Promise<void>; stop(): void } {
  const cache = new Map<string, { value: unknown; revision: number }>();
  const keyOf = ([kind, app, name]: LearnedKey) => `${token(kind)}.${app}.${token(name)}`;
  // Followed from the first read on: a thread that only writes or drops (the HTTP thread) keeps no copy.
  let f: ReturnType<typeof follow> | null = null;
  const following = () => (f ??= follow(kv, (e) => {
    const v = decode(e);
    if (v === undefined) cache.delete(e.key);
    else cache.set(e.key, { value: v, revision: e.revision });
  }));
  return {
    get ready() { return following().ready; },
    stop: () => f?.stop(),
    peek: <V>(key: LearnedKey) => { following(); return cache.get(keyOf(key))?.value as V | undefined; },
    async merge<V>(key: LearnedKey, fn: (old: V | undefined) => V | undefined) {
      const k = keyOf(key);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        let old: { value: V | undefined; revision: number };
        const mine = round === 0 && f ? cache.get(k) : undefined;
        if (mine) old = mine as { value: V; revision: number };
        else {
          const e = await guard(kv.get(k));
          old = { value: decode<V>(e), revision: e?.revision ?? 0 };
        }
        const next = fn(old.value);
        if (next === undefined) return;
        try {
          const revision = old.revision
            ? await guard(kv.update(k, encode(next), old.revision))
            : await guard(kv.create(k, encode(next)));
          // Seen here at once, before the watch brings it (this thread's next request reads it).
          const had = cache.get(k);
          if (!had || had.revision < revision) cache.set(k, { value: next, revision });
          return;
        } catch (err) {
          if (!isConflict(err)) throw err;
        }
      }
    },
    async dropApp(app) {
      const keys = await keysOf(kv, `*.${app}.*`);
      for (const k of keys) { await guard(kv.delete(k)); cache.delete(k); }
      return keys.length;
    },
  };
}
