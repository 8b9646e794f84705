/**
 * The background sweep: purges expired geofences through the store's delete path, so the change
 * log (and so every worker's index) sees an expiry as a delete, as tile38 does. Reads are already
 * exact without it (the store hides expired records); the sweep reclaims space and keeps the
 * indexes small. It keeps no state of its own: the expiry index is in LMDB, so a restart simply
 * scans on start and carries on.
 */
import { log } from '../log.js';
import type { GeofenceStore } from './store.js';
import { onAdvance } from '../time/clock.js';

export interface SweepOptions {
  /** How often to look for due fences. */
  intervalMs?: number;
  /** Records purged per transaction, so a burst of expiries never holds the write lock long. */
  batch?: number;
  /** Change-log entries kept per app; trimmed every `trimEvery` sweeps. */
  keepChanges?: number;
  trimEvery?: number;
}

export class ExpirySweeper {
  private timer: NodeJS.Timeout | null = null;
  private unwatch: () => void = () => {};
  private running: Promise<number> | null = null;
  private sweeps = 0;
  private readonly intervalMs: number;
  private readonly batch: number;
  private readonly keepChanges: number;
  private readonly trimEvery: number;
  purged = 0;

  constructor(private readonly store: GeofenceStore, opts: SweepOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.batch = opts.batch ?? 1000;
    this.keepChanges = opts.keepChanges ?? 200_000;
    this.trimEvery = opts.trimEvery ?? 60;
  }

  /** Sweeps at once (whatever expired while the service was down), then every interval. */
  start(): this {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    // A test moved the server's time (time/clock.ts): what fell due is purged now, not at the next tick.
    this.unwatch = onAdvance(() => void this.tick());
    return this;
  }

  /** One full pass: everything due by the store's clock now. Answers how many were purged. */
  async sweepOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.store.purgeExpired(this.batch);
      total += n;
      if (n < this.batch) break;
    }
    this.purged += total;
    if (++this.sweeps % this.trimEvery === 0) await this.store.trimChanges(this.keepChanges);
    return total;
  }

  /** Stops the timer and waits for a pass in progress, so the store can close under it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch();
    await this.running?.catch(() => 0);
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = this.sweepOnce();
    try {
      const n = await this.running;
      if (n > 0) log.debug('geofences expired', { purged: n });
    } catch (err) {
      log.error('geofence sweep failed', { error: String((err as Error)?.message ?? err) });
    } finally {
      this.running = null;
    }
  }
}
