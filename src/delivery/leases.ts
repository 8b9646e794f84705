/**
 * Leases in memory: which outbox entries this process has handed to a sender and not yet settled.
 *
 * A lease only has to keep the delivery loop of the one process that owns the data directory
 * (enforced by src/data-dir-lock.ts) from sending the same trigger twice at once. Kept in LMDB it
 * cost three writes per claim and moved every claimed entry's schedule a lease-length into the
 * future, so after a crash a claimed trigger waited for its lease to run out before being sent
 * again. Kept here, a claim writes nothing, and a crash forgets every lease at once: whatever was
 * in hand is due again the moment the next process starts (at least once, never later).
 *
 * Also kept per app: where the last scan of the app's schedule stopped (`scanFrom`). Every due
 * key before it is leased, so a claim need not read past all of them again: that matters to the
 * bucket exporter, which holds thousands of one app's entries for the length of a batch window.
 */

/**
 * What a claim did to an entry, written to the outbox only if the entry is retried or killed;
 * and where its schedule key is, which nothing else moves while the lease is held.
 */
export interface Claim {
  attempts: number;
  first_attempt_at: number;
  next_at: number;
}

/**
 * A scan may skip to `scanFrom - SLACK_MS`. Keys land behind the mark when they are written
 * with a time stamped before a scan but committed after it (another thread's enqueue waiting for
 * the write lock): a key that late by up to the slack is still found at once, and every
 * `FULL_SCAN_MS` a scan starts from the beginning as the guarantee (clock steps, long stalls).
 */
export const SLACK_MS = 250;
export const FULL_SCAN_MS = 2_000;

export class Leases {
  private readonly byApp = new Map<string, Map<string, Claim>>();
  private readonly marks = new Map<string, number>();
  private fullScanAt = -Infinity;
  private held = 0;

  get size(): number {
    return this.held;
  }

  has(app: string, id: string): boolean {
    return this.byApp.get(app)?.has(id) ?? false;
  }

  get(app: string, id: string): Claim | undefined {
    return this.byApp.get(app)?.get(id);
  }

  take(app: string, id: string, claim: Claim): void {
    let m = this.byApp.get(app);
    if (!m) this.byApp.set(app, (m = new Map()));
    if (!m.has(id)) this.held++;
    m.set(id, claim);
  }

  /** The entry is settled (or its settlement failed): any claim may take it again. */
  release(app: string, id: string): void {
    const m = this.byApp.get(app);
    if (!m?.delete(id)) return;
    this.held--;
    if (m.size === 0) {
      this.byApp.delete(app);
      this.marks.delete(app); // nothing leased: nothing to skip
    }
  }

  /**
   * The schedule time from which a scan of `app`'s due keys may start at `now`; undefined means
   * from the beginning. Starting a full round also forgets every mark.
   */
  scanStart(app: string, now: number): number | undefined {
    if (now - this.fullScanAt >= FULL_SCAN_MS || now < this.fullScanAt) {
      this.fullScanAt = now;
      this.marks.clear();
    }
    const mark = this.marks.get(app);
    return mark === undefined ? undefined : mark - SLACK_MS;
  }

  /** A scan read every due key of `app` up to schedule time `at`, and leased all it did not skip. */
  scanned(app: string, at: number): void {
    if (this.byApp.has(app)) this.marks.set(app, Math.max(at, this.marks.get(app) ?? -Infinity));
  }

  /** This process scheduled a key of `app` at `at`: a scan must not skip past it. */
  scheduled(app: string, at: number): void {
    const mark = this.marks.get(app);
    if (mark !== undefined && at <= mark) this.marks.set(app, at);
  }
}
