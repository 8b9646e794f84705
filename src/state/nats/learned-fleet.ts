/**
 * How a fleet's nodes hand on what they learn, once a window (WINDOW_MS, 1 s) each: one node holds
 * the lease `learned-writer` and writes every key once every WRITER_WINDOWS windows, whatever the
 * number of nodes; the others send it their window's sums in one request (`dwell.learned.sums`). The writer then tells
 * every node what it stored in one message (`dwell.learned.changed`), which each node's hub puts
 * into its copy. So what a node receives a window is a message from the writer, not one per key
 * written: the traffic a request costs does not grow with the nodes (before, every detection
 * thread watched the bucket: every write was delivered nodes × threads times).
 *
 * Nothing is lost when the writer goes, and nothing is added twice when an answer is: a chunk of
 * sums whose answer timed out is sent again under its id (the writer takes an id once); a node
 * writes its sums itself (read-modify-write with the revision, learned-flush.ts) only when no
 * writer listens at all, as while no node holds the lease. What a writer had acknowledged and not yet written when it died is lost: its last
 * window of learning, as a node's own pending sums are when it dies. A changes message missed
 * (core NATS, at most once) leaves the copy behind until the key is written again; the writes stay
 * exact, only reads are older.
 */
import type { KV } from '@nats-io/kv';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { log } from '../../log.js';
import { plusOf } from '../../learned/sums.js';
import type { LeaseState } from '../types.js';
import { kindOf, type Change, type LearnedCopy } from './learned-copy.js';
import { WINDOW_MS, writeSums, type AppLive, type Sum } from './learned-flush.js';
import { monotonicMs } from '../../time/wall.js';

const SUMS = 'dwell.learned.sums';
const CHANGED = 'dwell.learned.changed';
const LEASE = 'learned-writer';
/** Entries a message carries at most (NATS's default max_payload is 1 MiB; a place is ~100 bytes). */
const CHUNK = 2_000;
/**
 * The writer's window, in nodes' windows: 3 s. A new user's first request teaches some twenty
 * access points, mostly ones the app's other requests teach too; the longer the window, the more
 * stays share a write. bench:cluster, new users at the same rate: dwell-learned writes a request
 * 5.7 with 1 s (38 req/s), see docs/performance.md for 3 s.
 */
const WRITER_WINDOWS = 3;
/** A sum handed on and not seen stored by then stops being added to this node's view. */
const CONFIRM_MS = 10_000;

/** One chunk of a node's window: `id` unique per chunk (a repeat is taken once), `b` the batch on its last chunk. */
interface SumsMsg { id: string; b: string; s: Array<[string, unknown]> }
/** A window's sums on their way to the writer, chunk by chunk: what is left to send, and its sums. */
interface Unsent { b: string; keys: string[]; chunks: Array<{ msg: SumsMsg; sums: Sum[] }> }
interface ChangedMsg { b: string[]; c: Array<[string, number, unknown]> }

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const parse = <T>(d: Uint8Array) => JSON.parse(new TextDecoder().decode(d)) as T;
/** The request reached nobody (no writer subscribed): certain, unlike a timeout, that nothing was taken. */
const nobodyListened = (err: unknown): boolean => {
  const e = err as { name?: string; cause?: { name?: string }; isNoResponders?: () => boolean } | null;
  return e?.name === 'NoResponders' || e?.cause?.name === 'NoResponders' || (typeof e?.isNoResponders === 'function' && e.isNoResponders());
};
/** How long the writer remembers a chunk's id, so a node's repeat after a lost answer is not added twice. */
const REMEMBER_MS = 120_000;

export interface Fleet {
  flush(): Promise<void>;
  /** Tells every node that these keys were removed (an app's deletion). */
  dropped(keys: readonly string[]): void;
  stop(): Promise<void>;
}

/** `live`: whether an app still exists; the writer drops the sums of deleted apps (learned-flush.ts). */
export function fleetWriter(kv: KV, nc: NatsConnection, lease: LeaseState, copy: LearnedCopy, live?: AppLive, windowMs = WINDOW_MS): Fleet {
  const node = randomBytes(6).toString('hex');
  let batchNo = 0;
  /** Sums handed on, by batch, until the writer's changes hold them. */
  const handed = new Map<string, { keys: string[]; at: number }>();
  /** On the writer: the other nodes' sums, by key, and their batches, until written. */
  const remote = new Map<string, unknown>();
  let remoteBatches: string[] = [];
  /** On the writer: chunk ids taken, with when. */
  const taken = new Map<string, number>();
  /** This node's windows not yet answered by a writer, oldest first. */
  const unsent: Unsent[] = [];
  let serving: Subscription | null = null;

  const changed = nc.subscribe(CHANGED, {
    callback: (err, m) => {
      if (err) return;
      try {
        const msg = parse<ChangedMsg>(m.data);
        const confirmed = msg.b.flatMap((b) => { const h = handed.get(b); handed.delete(b); return h?.keys ?? []; });
        copy.apply(msg.c.map(([key, revision, value]) => ({ key, revision, value: value ?? undefined })), confirmed);
      } catch (e) {
        log.warn('learned changes not applied', { error: String((e as Error)?.message ?? e) });
      }
    },
  });

  const publish = (changes: readonly Change[], batches: readonly string[]) => {
    for (let i = 0; i === 0 || i < changes.length; i += CHUNK) {
      const last = i + CHUNK >= changes.length;
      const msg: ChangedMsg = { b: last ? [...batches] : [], c: changes.slice(i, i + CHUNK).map((c) => [c.key, c.revision, c.value ?? null]) };
      nc.publish(CHANGED, json(msg));
    }
  };

  const serve = (on: boolean) => {
    if (on && !serving) {
      serving = nc.subscribe(SUMS, {
        callback: (err, m) => {
          if (err) return;
          try {
            const msg = parse<SumsMsg>(m.data);
            // A repeat of a chunk already taken (its answer was lost, the node sent it again): taken once.
            if (taken.has(msg.id)) { m.respond(json({ ok: true })); return; }
            taken.set(msg.id, monotonicMs());
            for (const [key, delta] of msg.s) {
              const had = remote.get(key);
              remote.set(key, had === undefined ? delta : plusOf(kindOf(key))(had, delta) ?? had);
            }
            if (msg.b) remoteBatches.push(msg.b);
            m.respond(json({ ok: true }));
          } catch (e) {
            log.warn('learned sums refused', { error: String((e as Error)?.message ?? e) });
          }
        },
      });
    } else if (!on && serving) {
      serving.unsubscribe();
      serving = null;
    }
  };

  /** Writes `sums` (this node's, from the copy, and others'), then tells every node. */
  const write = async (local: Sum[], others: Sum[], batches: string[]) => {
    const mine = new Set(local.map((s) => s.key));
    const byKey = new Map<string, Sum>(local.map((s) => [s.key, s]));
    for (const o of others) {
      const l = byKey.get(o.key);
      byKey.set(o.key, l ? { ...l, delta: plusOf(kindOf(o.key))(l.delta, o.delta) ?? l.delta } : o);
    }
    const { changes, failed, error } = await writeSums(kv, [...byKey.values()], (s, c) => { if (mine.has(s.key)) copy.landed(s.key, c ? { revision: c.revision, value: c.value } : 'settled'); }, live);
    for (const f of failed) {
      if (mine.has(f.key)) copy.landed(f.key, 'failed');
      // Others' part of a failed sum waits for the next window here.
      const o = others.find((x) => x.key === f.key);
      if (o) { const had = remote.get(f.key); remote.set(f.key, had === undefined ? o.delta : plusOf(kindOf(f.key))(had, o.delta) ?? had); }
    }
    if (failed.length) log.warn('learned values not stored yet; again in the next window', { keys: failed.length, error: String((error as Error)?.message ?? error) });
    publish(changes, batches);
  };

  /**
   * Hands this node's sums to the writer, with any window still unanswered first. A chunk that
   * timed out may have been taken: it is sent again next window under the same id (the writer
   * takes an id once), never written here, so a sum is not counted twice. Only when no writer
   * listens at all does this node write what is left itself.
   */
  const handOn = async (local: Sum[]) => {
    if (local.length) {
      const b = `${node}.${batchNo++}`;
      const chunks: Unsent['chunks'] = [];
      for (let i = 0; i < local.length; i += CHUNK) {
        const sums = local.slice(i, i + CHUNK);
        chunks.push({ msg: { id: `${b}.${i}`, b: i + CHUNK >= local.length ? b : '', s: sums.map((x) => [x.key, x.delta]) }, sums });
      }
      unsent.push({ b, keys: local.map((x) => x.key), chunks });
    }
    while (unsent.length) {
      const u = unsent[0];
      try {
        while (u.chunks.length) {
          await nc.request(SUMS, json(u.chunks[0].msg), { timeout: 2_000 });
          u.chunks.shift();
        }
        handed.set(u.b, { keys: u.keys, at: monotonicMs() });
      } catch (err) {
        if (!nobodyListened(err)) return;
        await write(u.chunks.flatMap((c) => c.sums), [], []);
      }
      unsent.shift();
    }
  };

  let closing = false;
  let ticks = 0;
  const tick = async () => {
    for (const [b, h] of handed) if (monotonicMs() - h.at > CONFIRM_MS) { handed.delete(b); copy.apply([], h.keys); }
    for (const [id, at] of taken) if (monotonicMs() - at > REMEMBER_MS) taken.delete(id);
    const writer = !closing && await lease.hold(LEASE).catch(() => false);
    serve(writer);
    // The writer writes every WRITER_WINDOWS windows: a key taught by many stays, of any node, meanwhile is written once.
    if (writer && ++ticks % WRITER_WINDOWS !== 0) return;
    // Windows a former writer never answered are this node's to write once it is the writer.
    const local = [...(writer ? unsent.splice(0).flatMap((u) => u.chunks.flatMap((c) => c.sums)) : []), ...copy.takePending()];
    // Others' sums taken while this node was the writer are written by it, writer still or not.
    const others = [...remote].map(([key, delta]) => ({ key, delta, ...copy.stored(key) }));
    const batches = remoteBatches;
    remote.clear();
    remoteBatches = [];
    if (writer || others.length) {
      if (local.length || others.length) await write(local, others, batches);
    } else if (local.length || unsent.length) {
      await handOn(local);
    }
  };

  let running: Promise<void> | null = null;
  const flush = async () => {
    while (running) await running;
    running = tick().catch((e) => log.warn('learned window skipped', { error: String((e as Error)?.message ?? e) })).finally(() => { running = null; });
    await running;
  };
  const timer = setInterval(() => { if (!running) void flush(); }, windowMs);
  timer.unref();
  return {
    flush,
    dropped(keys) { publish(keys.map((key) => ({ key, revision: 0, value: undefined })), []); },
    async stop() {
      clearInterval(timer);
      closing = true;
      serve(false);
      await flush();
      changed.unsubscribe();
    },
  };
}
