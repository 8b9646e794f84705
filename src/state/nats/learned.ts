/**
 * Learned values in one KV bucket (`dwell-learned`), key `<kind>.<app>.<name>` (kind and name as
 * tokens).
 *
 * Design: a request reads dozens of access points, so reads are local, from the node's copy of
 * the bucket (learned-copy.ts): an LMDB environment of the process's own, filled at start by the
 * main thread (the hub) and read by every detection thread. Merges are sums (learned/sums.ts): a
 * thread's merge adds to the key's pending sum in the copy, which the node's threads read at
 * once; once a window (1 s) the hub hands the node's sums to the fleet's writer, which writes each
 * key once, with the revision (no addition lost), and tells every node what it stored in one
 * message (learned-fleet.ts). So a value reaches a node once, whatever its threads, and what
 * comes from NATS per request does not grow with the nodes (before, every detection thread
 * watched the bucket: every write was delivered nodes × threads times). Another node reads a
 * value up to two windows after it was learned (its node's window, then the writer's).
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
import type { NatsConnection } from '@nats-io/transport-node';
import type { LearnedKey, LearnedState, LeaseState } from '../types.js';
import { decode, follow, guard, keysOf, READY_WINDOW_MS, token } from './kv.js';
import { DwellError } from '../../errors.js';
import { monotonicMs } from '../../time/wall.js';
import type { AppLive } from './learned-flush.js';
import { LearnedCopy, type Change } from './learned-copy.js';
import { fleetWriter } from './learned-fleet.js';

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

/** `live`: whether an app still exists (its learning is not written after its deletion: learned-flush.ts). */
export function natsLearned(kv: KV, nc: NatsConnection, lease: LeaseState, live?: AppLive): NatsLearned {
  if (isMainThread) return hub(kv, nc, lease, hubs++ ? `${processCopy}-${hubs}` : processCopy, live);
  // A thread of a process whose main thread keeps no copy (no server around it) keeps its own.
  if (!existsSync(processCopy)) return hub(kv, nc, lease, `${processCopy}-t${threadId}`, live);
  return reader(kv, new LearnedCopy(processCopy, false), null);
}

/**
 * The main thread's: fills a fresh copy with what the bucket holds (a watch, stopped once it has
 * given every value), then keeps it current from the fleet's changes and hands on what the
 * node's threads learn (learned-fleet.ts).
 */
function hub(kv: KV, nc: NatsConnection, lease: LeaseState, at: string, live?: AppLive): NatsLearned {
  const copy = new LearnedCopy(at, true);
  // Listening before the fill: a change made meanwhile is kept either way (by revision).
  const fleet = fleetWriter(kv, nc, lease, copy, live);
  let batch: Change[] = [];
  const applyBatch = () => { const b = batch; batch = []; if (b.length) copy.apply(b); };
  const f = follow(kv, (e) => {
    if (!batch.length) setImmediate(applyBatch);
    batch.push({ key: e.key, revision: e.revision, value: decode(e) });
  });
  const ready = f.ready.then(() => { f.stop(); applyBatch(); copy.markReady(); });
  ready.catch(() => undefined); // rejected (an outage at start) for whoever awaits it, not the process
  return reader(kv, copy, {
    ready,
    flush: fleet.flush,
    dropped: fleet.dropped,
    async stop() { f.stop(); await fleet.stop(); await copy.close(true); },
  });
}

/** Reads and merges through `copy`; a thread that is not the hub waits for the hub's first fill. */
function reader(kv: KV, copy: LearnedCopy, own: (Pick<NatsLearned, 'ready' | 'flush' | 'stop'> & { dropped(keys: readonly string[]): void }) | null): NatsLearned {
  const keyOf = ([kind, app, name]: LearnedKey) => `${token(kind)}.${app}.${token(name)}`;
  let queue: Array<{ key: string; fn: (old: unknown) => unknown }> = [];
  let queued: Promise<void> | null = null;
  return {
    ready: own?.ready ?? quiet(untilReady(copy)),
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
      for (const k of keys) await guard(() => kv.delete(k));
      copy.dropApp(app);
      own?.dropped(keys);
      return keys.length;
    },
  };
}

/** `p`, with its rejection left to whoever awaits it (an unawaited one must not end the process). */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

/** The hub's first fill, seen from another thread: waited for as long as a follower's `ready` (kv.ts), then `unavailable`. */
async function untilReady(copy: LearnedCopy, maxMs = READY_WINDOW_MS): Promise<void> {
  const end = monotonicMs() + maxMs;
  while (!copy.ready) {
    if (monotonicMs() > end) throw new DwellError('unavailable', `learned values not loaded within ${maxMs} ms`, undefined, 2);
    await new Promise((r) => setTimeout(r, 20));
  }
}
