/**
 * The signed requests of each app this node is handling, from the moment they pass the signature
 * until their handler is done, each with a ticket in the order they started.
 *
 * Deleting an app (privacy/delete-app.ts) forgets the app first, so no request starts after; it
 * then waits for the ones already started, so that what they store (a user's record, learned
 * values, a recent detection, a trigger) is removed with the rest instead of outliving the app
 * where no erase, retention or delete reaches it. Erasing a user (privacy/routes.ts) waits for the
 * app's requests that started before the erase did: a detection of that user in flight would
 * otherwise store its visit just after the erase answered that nothing was left. Requests that
 * start after the erase are new data, as they would be a moment later.
 */
import { clock } from '../time/clock.js';
import { log } from '../log.js';

/** How long a deletion or an erase waits for the app's requests: a handler is a detection or a bulk write, seconds at most. */
export const DRAIN_MS = 60_000;

interface Waiter { before: number; done: () => void }

export class InFlight {
  private next = 1;
  /** Each app's requests being handled, by ticket; a Set iterates in insertion order, so its first is the oldest. */
  private readonly active = new Map<string, Set<number>>();
  private readonly tickets = new WeakMap<object, number>();
  private readonly waiters = new Map<string, Waiter[]>();

  /** `request` (the exchange) of `app` starts being handled. */
  enter(app: string, request: object): void {
    const t = this.next++;
    let set = this.active.get(app);
    if (!set) this.active.set(app, (set = new Set()));
    set.add(t);
    this.tickets.set(request, t);
  }

  leave(app: string, request: object): void {
    const t = this.tickets.get(request);
    const set = this.active.get(app);
    if (t === undefined || !set) return;
    this.tickets.delete(request);
    set.delete(t);
    if (!set.size) this.active.delete(app);
    this.settle(app);
  }

  /** Requests of `app` being handled now. */
  count(app: string): number {
    return this.active.get(app)?.size ?? 0;
  }

  /** Resolves once no request of `app` is being handled (at once if none is), or after `maxMs`, saying so in the log. */
  drained(app: string, maxMs = DRAIN_MS): Promise<void> {
    return this.wait(app, Infinity, maxMs, 'an app\'s requests still running when its deletion went on; what they store may outlive it');
  }

  /** Resolves once every request of `app` that started before `request` is done (not `request` itself), or after `maxMs`. */
  startedBefore(app: string, request: object, maxMs = DRAIN_MS): Promise<void> {
    return this.wait(app, this.tickets.get(request) ?? this.next, maxMs, 'an app\'s requests still running when an erase went on; what they store of the user may outlive it');
  }

  private oldest(app: string): number {
    const set = this.active.get(app);
    return set ? set.values().next().value as number : Infinity;
  }

  private wait(app: string, before: number, maxMs: number, warning: string): Promise<void> {
    if (this.oldest(app) >= before) return Promise.resolve();
    const started = clock.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const list = this.waiters.get(app);
        if (list) this.waiters.set(app, list.filter((w) => w !== waiter));
        log.warn(warning, { app_key: app, requests: this.count(app), waited_ms: clock.now() - started });
        resolve();
      }, maxMs);
      timer.unref();
      const waiter: Waiter = { before, done: () => { clearTimeout(timer); resolve(); } };
      const list = this.waiters.get(app) ?? [];
      list.push(waiter);
      this.waiters.set(app, list);
    });
  }

  private settle(app: string): void {
    const list = this.waiters.get(app);
    if (!list) return;
    const oldest = this.oldest(app);
    const left: Waiter[] = [];
    for (const w of list) {
      if (w.before <= oldest) w.done();
      else left.push(w);
    }
    if (left.length) this.waiters.set(app, left);
    else this.waiters.delete(app);
  }
}
