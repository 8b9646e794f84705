/**
 * What every JetStream KV bucket of Dwell shares: opening (creating on first use) with the
 * cluster's replica count, JSON values, keys that NATS accepts, conflicts told apart from outages,
 * and a watch that outlives a NATS outage.
 */
import type { KV, KvEntry, KvOptions } from '@nats-io/kv';
import { JetStreamApiError } from '@nats-io/jetstream';
import { DwellError } from '../../errors.js';
import { log } from '../../log.js';
import { retrying, unavailable, type NatsState } from './connect.js';
import { CatchUp } from './catch-up.js';
import { creating } from './create.js';
import type { Watching } from '../types.js';

/** How long opening a bucket may retry at start-up: a new three-server cluster can take seconds to place an R3 stream. */
const OPEN_WINDOW_MS = 30_000;
/** How long a follower's `ready` waits for the cluster before it rejects (`unavailable`); the watch itself goes on trying. */
export const READY_WINDOW_MS = 30_000;

export async function bucket(ns: NatsState, name: string, opts: Partial<KvOptions> = {}): Promise<KV> {
  return guard(() => creating(() => ns.kvm.create(name, { history: 1, replicas: ns.replicas, timeout: 2_000, ...opts })), OPEN_WINDOW_MS);
}

const utf8 = new TextEncoder();
const text = new TextDecoder();
export const encode = (v: unknown): Uint8Array => utf8.encode(JSON.stringify(v));
/** The stored value, or undefined when the entry is absent, deleted or purged. */
export const decode = <T>(e: KvEntry | null): T | undefined => (e && e.operation === 'PUT' && e.length > 0 ? JSON.parse(text.decode(e.value)) as T : undefined);

/**
 * A free-form part of a key (a user id, a BSSID, a table name) as one NATS token: base64url
 * after a letter, so it is never empty and never holds a dot or a wildcard.
 */
export const token = (s: string): string => 't' + Buffer.from(s, 'utf8').toString('base64url');
export const untoken = (t: string): string => Buffer.from(t.slice(1), 'base64url').toString('utf8');

/** The write lost a race (another writer changed the key since it was read): run the step again. */
export function isConflict(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === 10071 || /wrong last sequence/i.test(err.message);
  return /wrong last sequence|key exists/i.test(String((err as Error)?.message ?? err));
}

/**
 * Awaits a cluster call; an outage becomes DwellError `unavailable` (503 with Retry-After). Given
 * the call itself rather than its promise, it is retried through a failover first (connect.ts
 * `retrying`): only calls that may run twice are given so (reads, puts, conditional writes whose
 * repeat answers a conflict).
 */
export async function guard<T>(p: Promise<T> | (() => Promise<T>), windowMs?: number): Promise<T> {
  try {
    return await (typeof p === 'function' ? retrying(p, windowMs) : p);
  } catch (err) {
    if (isConflict(err)) throw err;
    throw unavailable(err);
  }
}

/** Every key of the bucket under `filter` (a NATS subject filter such as `app.>`). */
export async function keysOf(kv: KV, filter = '>'): Promise<string[]> {
  const out: string[] = [];
  for await (const k of await guard(() => kv.keys(filter))) out.push(k);
  return out;
}

/**
 * Follows every key of `kv` (its latest value first, then each change) until stopped; watches
 * again after an outage, from the latest values, so a follower never stays behind. `ready`
 * resolves once the values stored when the watch began have been seen, and rejects (`unavailable`)
 * when the cluster has not let the watch begin within `readyMs`, so no one waits on it without
 * bound; `caughtUp` resolves once every write acknowledged before the call has (catch-up.ts).
 */
export function follow(kv: KV, onEntry: (e: KvEntry) => void, readyMs = READY_WINDOW_MS): Watching {
  const catchUp = new CatchUp(async () => (await guard(() => kv.status())).streamInfo.state.last_seq);
  let stopped = false;
  let stopCurrent: (() => void) | null = null;
  let markReady!: () => void;
  let failReady!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => { markReady = resolve; failReady = reject; });
  // A follower no one awaits (the apps watch) must not turn an outage into an unhandled rejection.
  ready.catch(() => undefined);
  const giveUp = setTimeout(() => failReady(new DwellError('unavailable', `the state cluster did not answer within ${readyMs} ms`, undefined, 2)), readyMs);
  giveUp.unref?.();
  ready.then(() => clearTimeout(giveUp), () => undefined);
  const run = async () => {
    while (!stopped) {
      try {
        const st = await kv.status();
        const w = await kv.watch();
        stopCurrent = () => w.stop();
        if (st.values === 0) markReady();
        // Nothing arrives while a bucket holds nothing but expired markers: ready after a moment anyway.
        const fallback = setTimeout(markReady, 2_000);
        fallback.unref?.();
        for await (const e of w) {
          onEntry(e);
          catchUp.saw(e.revision);
          if (!e.delta) markReady();
        }
        clearTimeout(fallback);
      } catch (err) {
        if (!stopped) log.warn('state watch interrupted; watching again', { bucket: kv.constructor.name, error: String((err as Error)?.message ?? err) });
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 500));
    }
  };
  void run();
  return { ready, stop: () => { stopped = true; clearTimeout(giveUp); stopCurrent?.(); }, caughtUp: (maxMs) => catchUp.caughtUp(maxMs) };
}
