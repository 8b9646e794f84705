/**
 * Signatures seen within the stale window, per app (contract §1: a replay is refused also after
 * a restart). A signature can only be replayed while its timestamp is fresh, so each entry lives
 * until its timestamp leaves the window.
 *
 * The Map answers every check; LMDB (`<data dir>/replay.mdb`) only remembers, for the next start.
 * The signatures recorded in one turn of the loop are committed together, in one synchronous
 * transaction in the check phase that follows it (as pipeline/gather.ts gathers detections), and
 * without fsync (`noSync`): the commit reaches the OS's page cache before the request is acted
 * upon, so a crash or kill -9 of the process loses nothing; a crash of the OS itself may lose the
 * last few milliseconds of signatures. lmdb-js's own batching (an asynchronous `put`) commits on
 * its writer thread and answers back across threads, two thread wake-ups a claim when claims come
 * one a turn (a server at part load). bench:replay-commit runs both: a claim alone waits about
 * 0.4 × as long this way (0.06 against 0.16 ms at the median) at a quarter of the CPU, and on a
 * busy machine the put's 90th percentile was 3–4 ms against 0.2 (docs/performance.md).
 *
 * Expiry is by whole generations instead of per entry: an entry expiring at second e is filed in
 * generation ⌊e / 300⌋ mod 4. Live expiries lie in [now, now + 600] (a timestamp is fresh up to
 * 300 s either side of now), three generations; the fourth holds only expired entries and is
 * cleared in one write while it waits to be reused, so the sweep costs nothing per request.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import { STALE_AFTER_S } from './auth.js';
import { wallNow } from '../time/wall.js';

const GENERATIONS = 4;

export class ReplayCache {
  private readonly seen = new Map<string, number>();
  private readonly byExpiry = new Map<number, string[]>();
  private readonly root: RootDatabase;
  private readonly gens: Database<number, string>[];
  private readonly timer: NodeJS.Timeout;
  private clearedBefore = -1;
  /** The signatures recorded in this turn of the loop, not yet committed, and their claims' one promise. */
  private pendingKeys: string[] = [];
  private pendingExpiries: number[] = [];
  private turn: Promise<true> | null = null;
  private settleTurn: { resolve: (v: true) => void; reject: (e: unknown) => void } | null = null;

  constructor(dataDir: string, sweepMs = 10_000, now = wallNow()) {
    // A writable map: a claim's commit writes its page in place instead of a copy and a pwrite (as
    // users/env-options.ts), 15–20 against 5–8 µs of the HTTP thread's CPU a commit (a scratch
    // measurement; bench:replay-commit compares the whole against lmdb-js's asynchronous put).
    this.root = open({ path: path.join(dataDir, 'replay.mdb'), compression: false, noSync: true, useWritemap: true });
    this.gens = Array.from({ length: GENERATIONS }, (_, i) => this.root.openDB<number, string>({ name: `expiring-${i}` }));
    for (const db of this.gens) {
      for (const { key, value } of db.getRange()) if (value * 1000 >= now) this.remember(key, value);
    }
    this.sweep(now);
    this.timer = setInterval(() => this.sweep(), sweepMs);
    this.timer.unref();
  }

  /** Throws `replayed_request` if this signature was already accepted and is still fresh. */
  check(appKey: string, signature: string, now = wallNow()): void {
    const prev = this.seen.get(keyOf(appKey, signature));
    if (prev !== undefined && prev * 1000 >= now) {
      throw new DwellError('replayed_request', 'this signature was already used; sign each request with a fresh timestamp');
    }
  }

  /**
   * Remembers an accepted signature: at once in memory (so a copy arriving next is refused),
   * and in the store; resolves once the store has it.
   */
  record(appKey: string, signature: string, timestampS: number): Promise<true> {
    const key = keyOf(appKey, signature);
    const expiryS = timestampS + STALE_AFTER_S;
    this.remember(key, expiryS);
    this.pendingKeys.push(key);
    this.pendingExpiries.push(expiryS);
    // One promise a turn, shared by its claims: each request's `await` is all it costs.
    if (!this.turn) {
      this.turn = new Promise<true>((resolve, reject) => { this.settleTurn = { resolve, reject }; });
      setImmediate(this.commitTurn);
    }
    return this.turn;
  }

  /** Commits the turn's signatures in one transaction, then answers their claims. */
  private readonly commitTurn = (): void => {
    if (!this.turn) return; // committed already, by close()
    const keys = this.pendingKeys, expiries = this.pendingExpiries, settle = this.settleTurn!;
    this.pendingKeys = [];
    this.pendingExpiries = [];
    this.turn = null;
    this.settleTurn = null;
    try {
      this.root.transactionSync(() => {
        for (let i = 0; i < keys.length; i++) this.gens[generationOf(expiries[i])].putSync(keys[i], expiries[i]);
      });
      settle.resolve(true);
    } catch (err) {
      // None of the turn's requests is acted upon; each fails as a write to the store fails.
      settle.reject(err);
    }
  };

  get size(): number {
    return this.seen.size;
  }

  sweep(now = wallNow()): void {
    for (const [expiryS, keys] of this.byExpiry) {
      if (expiryS * 1000 >= now) continue;
      // A key recorded again later has a later expiry filed elsewhere: keep it.
      for (const key of keys) if ((this.seen.get(key) ?? Infinity) <= expiryS) this.seen.delete(key);
      this.byExpiry.delete(expiryS);
    }
    // The generation of the period before this one holds only expired entries.
    const period = Math.floor(now / 1000 / STALE_AFTER_S);
    if (period > this.clearedBefore) {
      this.clearedBefore = period;
      // A failed clear loses nothing: the generation's entries are expired, and the next period tries the next one.
      const gen = (period - 1) % GENERATIONS;
      this.gens[gen].clearAsync().catch((err: unknown) =>
        log.warn('replay cache: expired generation not cleared', { generation: gen, error: String((err as Error)?.message ?? err) }));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    // Claims of this turn are committed (and answered) before the store closes under them.
    if (this.turn) this.commitTurn();
    await this.root.close();
  }

  private remember(key: string, expiryS: number): void {
    this.seen.set(key, expiryS);
    const bucket = this.byExpiry.get(expiryS);
    if (bucket) bucket.push(key);
    else this.byExpiry.set(expiryS, [key]);
  }
}

// 128 bits of the signature identify it as well as all 256, in half the memory.
const keyOf = (appKey: string, signature: string) => appKey + ':' + signature.slice(0, 32);

const generationOf = (expiryS: number) => Math.floor(expiryS / STALE_AFTER_S) % GENERATIONS;
