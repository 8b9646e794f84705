/**
 * The node's learned writes: every WINDOW_MS, what its threads learned meanwhile (summed per key
 * in the node's copy, learned-copy.ts) is written once per key, read-modify-write with the
 * revision, again on a conflict; so two nodes adding to one key never lose an addition.
 *
 * Why a window: a new user's first request teaches some twenty access points, and the app's next
 * requests teach mostly the same ones; one write per key and window instead of one per stay and
 * thread. The delay it allows: another node reads a value up to WINDOW_MS plus a write and a
 * watch delivery after it was learned (this node's threads read it at once, from the copy).
 */
import type { KV } from '@nats-io/kv';
import { log } from '../../log.js';
import { plusOf } from '../../learned/sums.js';
import { decode, encode, guard, isConflict } from './kv.js';
import { kindOf, type LearnedCopy } from './learned-copy.js';

export const WINDOW_MS = 1_000;
const MAX_ROUNDS = 64;
/** Writes in flight at once: a window's keys go out pipelined, not one round trip after another. */
const PARALLEL = 64;

/** Writes one key's sum; answers how it landed. */
async function writeOne(kv: KV, copy: LearnedCopy, w: { key: string; revision: number; stored: unknown; delta: unknown }): Promise<void> {
  const plus = plusOf(kindOf(w.key));
  let old = { value: w.stored, revision: w.revision };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = plus(old.value, w.delta);
    if (next === undefined) { copy.landed(w.key, 'settled'); return; }
    try {
      const revision = old.revision
        ? await guard(kv.update(w.key, encode(next), old.revision))
        : await guard(kv.create(w.key, encode(next)));
      copy.landed(w.key, { revision, value: next });
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
      // The copy was behind (another node wrote since): read what is stored and add to that.
      const e = await guard(kv.get(w.key));
      old = { value: decode(e), revision: e?.revision ?? 0 };
    }
  }
  throw new Error(`learned value ${w.key} still conflicting after ${MAX_ROUNDS} rounds`);
}

/** Writes everything pending now; a key that could not be written is pending again, for the next window. */
export async function flushLearned(kv: KV, copy: LearnedCopy): Promise<number> {
  const writes = copy.takePending();
  let next = 0;
  let failed = 0;
  let firstError: unknown;
  await Promise.all(Array.from({ length: Math.min(PARALLEL, writes.length) }, async () => {
    while (next < writes.length) {
      const w = writes[next++];
      try {
        await writeOne(kv, copy, w);
      } catch (err) {
        failed++;
        firstError ??= err;
        copy.landed(w.key, 'failed');
      }
    }
  }));
  if (failed) log.warn('learned values not stored yet; again in the next window', { keys: failed, error: String((firstError as Error)?.message ?? firstError) });
  return writes.length - failed;
}

/** Flushes every WINDOW_MS until stopped; `stop` writes what is still pending, once. */
export function flushEvery(kv: KV, copy: LearnedCopy, windowMs = WINDOW_MS): { flush(): Promise<void>; stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const flush = async () => {
    while (running) await running;
    running = flushLearned(kv, copy).finally(() => { running = null; });
    await running;
  };
  const timer = setInterval(() => { if (!running) void flush().catch(() => {}); }, windowMs);
  timer.unref();
  return {
    flush,
    async stop() { clearInterval(timer); await flush().catch(() => {}); },
  };
}
