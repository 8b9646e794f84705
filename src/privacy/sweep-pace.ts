/**
 * When the retention sweep (retention.ts) may run its next batch, and how big that batch is.
 *
 * Why: the sweep's batches are write transactions of the users environment that the detection
 * workers write on every request, and they used to run on the thread that serves HTTP (still so in
 * cluster mode; the embedded store gives them a thread of their own, sweep-thread.ts). On a
 * two-core machine under steady /v1/detect load, batches taken whenever the tick came raised detect
 * p99 ×2.3 (bench:privacy, batches of 32 users, on the HTTP thread): a request that arrived during
 * a batch waited for the HTTP thread, its worker waited for the write lock, and the batch's CPU was
 * taken from a worker already short of a core. So a batch runs while no request is in flight
 * (`busy` answers false): then nobody waits for the thread or the lock, and the CPU is otherwise
 * idle. And a batch is sized to hold the lock about `batchMs` (measured, not guessed: a batch's
 * cost per user varies with the records' size and the machine's load), so a request arriving during
 * one waits little.
 *
 * A server that is never idle would never sweep, so each tick may also remove `minPerSecond` ×
 * the tick's interval users while requests are in flight, after waiting half its interval for a
 * quiet moment: a backlog of B users is gone within B / minPerSecond seconds however busy the
 * server (as long as the tick's budget holds that many, which retention.ts's defaults do).
 *
 * What pacing does not reach (bench:privacy with per-batch timings, load 5-11, 100,000 expired
 * users, batches on the HTTP thread): on a loaded machine the thread can be descheduled in the
 * middle of a batch. Of ~1,300 batches in 11 s, 2.6 % took over 2 ms and held half the sweep's
 * time on the thread (up to 60 ms each); a request arriving then waited for it. Batches of 32
 * taken whenever the tick came: 70-80 % ran while a request was in flight; paced: 1-2 %. Hence
 * the sweep's own thread: there a stretched batch delays only a detection write that needs the
 * lock in those moments, never the HTTP thread.
 */

export interface PaceOptions {
  /** True while a request is in flight; the sweep keeps to quiet moments. Absent: never busy. */
  busy?: () => boolean;
  /** How often a tick starts, ms. */
  intervalMs: number;
  /** Users a tick removes per second of its interval even while requests are in flight. */
  minPerSecond: number;
  /** Target time of one batch (one write transaction), ms. */
  batchMs: number;
  /** A fixed batch size instead of the measured one (tests). */
  fixedBatch?: number;
}

/** The first batch's size, before any is measured. */
export const FIRST_BATCH = 8;
/** Largest batch: about 5 ms of lock at the fastest measured cost per user. */
export const MAX_BATCH = 64;
/** How often a waiting sweep looks for a quiet moment, ms. */
const POLL_MS = 2;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SweepPace {
  /** Records the next batch reads. */
  size: number;
  /** Users still to remove this tick regardless of load. */
  private quota = 0;
  /** When the quota stops waiting for a quiet moment, and when the tick stops waiting at all (performance.now() ms). */
  private forceAt = 0;
  private deadline = 0;
  /** Set by the sweeper's stop(): a waiting tick ends at once. */
  stopping = false;

  constructor(private readonly o: PaceOptions) {
    this.size = o.fixedBatch ?? FIRST_BATCH;
  }

  /** At the start of a tick. */
  begin(): void {
    const t = performance.now();
    this.quota = Math.ceil((this.o.minPerSecond * this.o.intervalMs) / 1000);
    this.forceAt = t + this.o.intervalMs / 2;
    this.deadline = t + this.o.intervalMs * 0.9;
  }

  /** Resolves true when the next batch may run now, false when the tick should end instead. */
  async clear(): Promise<boolean> {
    for (;;) {
      if (this.stopping) return false;
      if (!this.o.busy?.()) return true;
      const t = performance.now();
      if (this.quota > 0 && t >= this.forceAt) return true;
      if (t >= (this.quota > 0 ? this.forceAt : this.deadline)) return false;
      await sleep(POLL_MS);
    }
  }

  /** After a batch that read `read` records (of `size`) in `ms`: counts the quota, sizes the next. */
  done(read: number, ms: number): void {
    this.quota -= read;
    // Only a full batch measures what a batch of this size costs.
    if (this.o.fixedBatch !== undefined || read < this.size) return;
    const fits = (this.size * this.o.batchMs) / Math.max(ms, 0.01);
    // Halfway towards what fits: one slow batch (a page fault, a descheduled thread) does not collapse the size.
    this.size = Math.min(MAX_BATCH, Math.max(1, Math.round((this.size + fits) / 2)));
  }
}
