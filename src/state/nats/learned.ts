/**
 * Learned values in one KV bucket (`dwell-learned`), key `<kind>.<app>.<name>` (kind and name as
 * tokens).
 *
 * Design: a request reads dozens of access points, so reads are local, from the node's copy of
 * the bucket (learned-copy.ts): an LMDB environment of the process's own, fed by one watch on the
 * main thread (the hub) and read by every detection thread. A value reaches a node once, however
 * many threads it has (before, every thread watched the bucket: nodes × threads deliveries of
 * every write). Merges are sums (learned/sums.ts): a thread's merge adds to the key's pending sum
 * in the copy (read at once by the node's threads), and the hub writes each key's sum once a
 * window (learned-flush.ts), with the revision, again on a conflict; so no addition is lost across
 * nodes. Another node sees a value within the window (1 s) plus a watch delivery.
 *
 * `merge`'s function is applied to the pending sum (starting from nothing), so it must answer its
 * argument plus what it adds, in the kind's sum (every merge of users/cluster-view.ts does);
 * before that it is applied to the current value, and a merge that leaves it as it is (undefined:
 * settled) adds nothing. `merge` resolves once the sum holds it, before the write.
 *
 * Memory: the whole table once per node, in a memory map (an access point's place is about 100
 * bytes; a million is about 100 MB); beyond that, shard by app.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import type { KV } from '@nats-io/kv';
import type { LearnedKey, LearnedState } from '../types.js';
import { decode, follow, guard, keysOf, token } from './kv.js';
import { LearnedCopy, type Change } from './learned-copy.js';
import { flushEvery } from './learned-flush.js';

export interface NatsLearned extends LearnedState {
  /** Resolves once this node's copy holds what was stored when it opened. */
  ready: Promise<void>;
  /** Writes what this node learned and has not written yet (the hub does so every window). */
  flush(): Promise<void>;
  /** Writes what is pending and stops following. */
  stop(): Promise<void>;
}

/** The copy the process's detection threads open: the first hub's. */
const processCopy = path.join(tmpdir(), `dwell-learned-${process.pid}`);
let hubs = 0;

export function natsLearned(kv: KV): NatsLearned {
  if (isMainThread) return hub(kv, hubs++ ? `${processCopy}-${hubs}` : processCopy);
  // A thread of a process whose main thread keeps no copy (no server around it) keeps its own.
  if (!existsSync(processCopy)) return hub(kv, `${processCopy}-t${threadId}`);
  return reader(kv, new LearnedCopy(processCopy, false), null);
}

/** The main thread's: follows the bucket into a fresh copy and writes the threads' sums. */
function hub(kv: KV, at: string): NatsLearned {
  const copy = new LearnedCopy(at, true);
  let batch: Change[] = [];
  const applyBatch = () => { const b = batch; batch = []; if (b.length) copy.apply(b); };
  const f = follow(kv, (e) => {
    if (!batch.length) setImmediate(applyBatch);
    batch.push({ key: e.key, revision: e.revision, value: decode(e) });
  });
  const ready = f.ready.then(() => { applyBatch(); copy.markReady(); });
  const writer = flushEvery(kv, copy);
  return reader(kv, copy, {
    ready,
    flush: writer.flush,
    async stop() { f.stop(); await writer.stop(); await copy.close(true); },
  });
}

/** Reads and merges through `copy`; a thread that is not the hub waits for the hub's first fill. */
function reader(kv: KV, copy: LearnedCopy, own: Pick<NatsLearned, 'ready' | 'flush' | 'stop'> | null): NatsLearned {
  const keyOf = ([kind, app, name]: LearnedKey) => `${token(kind)}.${app}.${token(name)}`;
  let queue: Array<{ key: string; fn: (old: unknown) => unknown }> = [];
  let queued: Promise<void> | null = null;
  return {
    ready: own?.ready ?? untilReady(copy),
    flush: own?.flush ?? (async () => {}),
    stop: own?.stop ?? (async () => {}),
    peek: <V>(key: LearnedKey) => copy.view<V>(keyOf(key)),
    merge<V>(key: LearnedKey, fn: (old: V | undefined) => V | undefined): Promise<void> {
      // A request's merges (a dozen or more, in one turn) go into the copy in one transaction.
      queue.push({ key: keyOf(key), fn: fn as (old: unknown) => unknown });
      return (queued ??= Promise.resolve().then(() => {
        const q = queue;
        queue = [];
        queued = null;
        copy.addPending(q);
      }));
    },
    async dropApp(app) {
      const keys = await keysOf(kv, `*.${app}.*`);
      copy.dropApp(app);
      for (const k of keys) await guard(kv.delete(k));
      copy.dropApp(app);
      return keys.length;
    },
  };
}

async function untilReady(copy: LearnedCopy): Promise<void> {
  while (!copy.ready) await new Promise((r) => setTimeout(r, 20));
}
