/**
 * The signed requests of each app this node is handling, from the moment they pass the signature
 * until their handler is done. Deleting an app (privacy/delete-app.ts) forgets the app first, so
 * no request starts after; it then waits for the ones already started, so that what they store
 * (a user's record, learned values, a recent detection, a trigger) is removed with the rest
 * instead of outliving the app where no erase, retention or delete reaches it.
 */
import { clock } from '../time/clock.js';
import { log } from '../log.js';

/** How long a deletion waits for the app's requests: a handler is a detection or a bulk write, seconds at most. */
export const DRAIN_MS = 60_000;

export class InFlight {
  private readonly counts = new Map<string, number>();
  private readonly waiters = new Map<string, Array<() => void>>();

  enter(app: string): void {
    this.counts.set(app, (this.counts.get(app) ?? 0) + 1);
  }

  leave(app: string): void {
    const n = (this.counts.get(app) ?? 1) - 1;
    if (n > 0) { this.counts.set(app, n); return; }
    this.counts.delete(app);
    const ws = this.waiters.get(app);
    this.waiters.delete(app);
    for (const w of ws ?? []) w();
  }

  /** Requests of `app` being handled now. */
  count(app: string): number {
    return this.counts.get(app) ?? 0;
  }

  /** Resolves once no request of `app` is being handled (at once if none is), or after `maxMs`, saying so in the log. */
  drained(app: string, maxMs = DRAIN_MS): Promise<void> {
    if (!this.counts.get(app)) return Promise.resolve();
    const started = clock.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log.warn('an app\'s requests still running when its deletion went on; what they store may outlive it', { app_key: app, requests: this.count(app), waited_ms: clock.now() - started });
        resolve();
      }, maxMs);
      timer.unref();
      const list = this.waiters.get(app) ?? [];
      list.push(() => { clearTimeout(timer); resolve(); });
      this.waiters.set(app, list);
    });
  }
}
