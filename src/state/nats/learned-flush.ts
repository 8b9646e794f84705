/**
 * Writing learned sums to the bucket: each key once, read-modify-write with the revision, again
 * on a conflict; so two writers adding to one key never lose an addition. The sums come from the
 * node's copy (its threads' merges, learned-copy.ts) and, on the fleet's writer, from the other
 * nodes (learned-fleet.ts).
 */
import type { KV } from '@nats-io/kv';
import { plusOf } from '../../learned/sums.js';
import { decode, encode, guard, isConflict } from './kv.js';
import { kindOf, type Change } from './learned-copy.js';

/** How often a node hands on what its threads learned: the delay another node reads it with, at most, plus a write and a delivery. */
export const WINDOW_MS = 1_000;
const MAX_ROUNDS = 64;
/** Writes in flight at once: a window's keys go out pipelined, not one round trip after another. */
const PARALLEL = 64;

export interface Sum { key: string; revision: number; stored: unknown; delta: unknown }

/** Writes one key's sum: its new value and revision, or undefined when the stored value is settled. */
async function writeOne(kv: KV, w: Sum): Promise<Change | undefined> {
  const plus = plusOf(kindOf(w.key));
  let old = { value: w.stored, revision: w.revision };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = plus(old.value, w.delta);
    if (next === undefined) return undefined;
    try {
      const revision = old.revision
        ? await guard(() => kv.update(w.key, encode(next), old.revision))
        : await guard(() => kv.create(w.key, encode(next)));
      return { key: w.key, revision, value: next };
    } catch (err) {
      if (!isConflict(err)) throw err;
      // The revision known was behind (another writer wrote since): add to what is stored.
      const e = await guard(() => kv.get(w.key));
      old = { value: decode(e), revision: e?.revision ?? 0 };
    }
  }
  throw new Error(`learned value ${w.key} still conflicting after ${MAX_ROUNDS} rounds`);
}

/** Whether an app still exists (its record is stored): learning of a deleted app is not written. */
export type AppLive = (app: string) => Promise<boolean>;

/** The app of a learned key (`<kind>.<app>.<rest>`, as dropApp's filter reads it). */
const appOf = (key: string) => key.split('.', 2)[1] ?? '';

/**
 * Sums of apps that no longer exist are dropped, answered as settled: a node's window (and the
 * writer's) can still hold an app's learning when the app is deleted, and written after its
 * deletion it would stay for ever under a key nobody owns. A failed check keeps the sum.
 */
async function ofLiveApps(sums: readonly Sum[], live: AppLive, done: (s: Sum, c: Change | undefined) => void): Promise<Sum[]> {
  const apps = new Map<string, Promise<boolean>>();
  for (const s of sums) { const a = appOf(s.key); if (!apps.has(a)) apps.set(a, live(a).catch(() => true)); }
  const gone = new Set<string>();
  for (const [a, p] of apps) if (!(await p)) gone.add(a);
  if (!gone.size) return sums as Sum[];
  const kept: Sum[] = [];
  for (const s of sums) { if (gone.has(appOf(s.key))) done(s, undefined); else kept.push(s); }
  return kept;
}

/**
 * Writes every sum of a live app (`live`: absent, every sum); answers what was stored and what
 * could not be (to try again), with the first error.
 */
export async function writeSums(kv: KV, all: readonly Sum[], done: (s: Sum, c: Change | undefined) => void, live?: AppLive): Promise<{ changes: Change[]; failed: Sum[]; error?: unknown }> {
  const sums = live ? await ofLiveApps(all, live, done) : all;
  const changes: Change[] = [];
  const failed: Sum[] = [];
  let error: unknown;
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(PARALLEL, sums.length) }, async () => {
    while (next < sums.length) {
      const s = sums[next++];
      try {
        const c = await writeOne(kv, s);
        if (c) changes.push(c);
        done(s, c);
      } catch (err) {
        error ??= err;
        failed.push(s);
      }
    }
  }));
  return { changes, failed, error };
}
