/**
 * The postback dispatcher: takes due triggers from the outbox, leases them, sends them, and
 * records each result (ack, retry with backoff, or dead).
 *
 * - Isolation: at most `perApp` sends of one app are in flight, so a slow or dead receiver holds
 *   only its own slots; other apps' triggers are still picked on every pass.
 * - Durability: an entry stays in the outbox, due, until its result is written; the claim is a
 *   lease in memory, so if this process dies mid-send the next one sends it again at once. At
 *   least once.
 * - Latency: `wake()` (on enqueue) starts a pass at once; a pass every `pollMs` is the guarantee,
 *   also for retries coming due and for what was queued before a restart.
 * - Across nodes (cluster mode): the caps are per node. An app's receiver sees at most
 *   nodes × `perApp` sends at once; to hold a cluster-wide cap C, set DWELL_POSTBACK_CONCURRENCY
 *   to C / nodes. Triggers a node cannot send because the app is at its cap there go back to
 *   the shared queue within seconds (state/nats/outbox-claims.ts), for a node with free slots.
 * Clock, random source, app lookup and sender are injected so tests can drive all of it.
 */
import { DEFAULT_BACKOFF, nextRetry, type BackoffPolicy } from './backoff.js';
import type { Outbox, OutboxEntry, Payload } from '../outbox.js';
import type { AppLookup } from '../app-settings.js';
import type { Outcome, SendResult } from './sender.js';
import { Completions } from './completions.js';
import { clock } from '../../time/clock.js';

export interface DispatcherOptions {
  outbox: Pick<Outbox, 'pendingApps' | 'claimDue' | 'settle'>;
  apps: AppLookup;
  send: (url: string, secret: string, payload: Payload, nowMs: number) => Promise<SendResult>;
  clock?: () => number;
  random?: () => number;
  backoff?: BackoffPolicy;
  /** Sends in flight per app. */
  perApp?: number;
  /** Sends in flight in all. */
  maxInFlight?: number;
  pollMs?: number;
  /** Entries taken from the outbox per pass. */
  batch?: number;
  /** ms within which slots freed by finished sends are refilled (one claim for many). */
  refillMs?: number;
  /** Observers for metrics: every attempt's outcome, and the wait from 202 to a first attempt. */
  onAttempt?: (outcome: Outcome) => void;
  onFirstAttempt?: (ms: number) => void;
  onError?: (err: unknown) => void;
}

export class PostbackDispatcher {
  private readonly o: Required<Omit<DispatcherOptions, 'onAttempt' | 'onFirstAttempt' | 'onError'>> & DispatcherOptions;
  private readonly perAppInFlight = new Map<string, number>();
  private readonly sends = new Set<Promise<void>>();
  private readonly done: Completions;
  private inFlight = 0;
  private passing: Promise<void> | null = null;
  private again = false;
  private woken = false;
  private timer: NodeJS.Timeout | null = null;
  private refilling: NodeJS.Timeout | null = null;
  private stopped = true;
  private lastApp = '';

  constructor(opts: DispatcherOptions) {
    this.o = {
      clock: clock.now, random: Math.random, backoff: DEFAULT_BACKOFF,
      perApp: 32, maxInFlight: 2048, pollMs: 250, batch: 512, refillMs: 1,
      // An option given as undefined keeps its default (settings come through optional fields).
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as DispatcherOptions,
    };
    this.done = new Completions(this.o.outbox, (err) => this.report(err));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.tick(), this.o.pollMs);
    this.wake();
  }

  /** Cuts latency only: coalesces bursts of wake-ups into one pass. */
  wake(): void {
    if (this.stopped || this.woken) return;
    this.woken = true;
    setImmediate(() => {
      this.woken = false;
      this.tick();
    });
  }

  /**
   * A slot is free: whatever waited for it may go, within `refillMs`. Completions arrive one by
   * one; gathered over a millisecond or two they are refilled by one claim (one transaction)
   * instead of one claim each, which at thousands a second is most of the outbox's work.
   */
  private refill(): void {
    if (this.stopped || this.woken || this.refilling) return;
    this.refilling = setTimeout(() => {
      this.refilling = null;
      this.tick();
    }, this.o.refillMs);
  }

  private tick(): void {
    if (!this.stopped) void this.pass();
  }

  /** Stops taking entries, waits for sends in flight (bounded by the send timeout), records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.refilling) clearTimeout(this.refilling);
    this.timer = null;
    this.refilling = null;
    await this.passing;
    await Promise.all(this.sends);
    await this.done.flush();
  }

  /** One pass: pick due entries up to the caps, lease them, start their sends. Tests call it directly. */
  pass(): Promise<void> {
    if (this.passing) {
      this.again = true;
      return this.passing;
    }
    this.passing = this.run().catch((err) => this.report(err)).finally(() => {
      this.passing = null;
    });
    return this.passing;
  }

  /** Resolves when no send is in flight and every result is written (tests). */
  async idle(): Promise<void> {
    while (this.sends.size || this.passing) await Promise.all([...this.sends, this.passing]);
    await this.done.flush();
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      const room = Math.min(this.o.batch, this.o.maxInFlight - this.inFlight);
      if (room <= 0) return;
      const now = this.o.clock();
      const want = this.want(now);
      if (want.length === 0) return;
      const claimed = this.o.outbox.claimDue(want, now, room);
      if (claimed.length) this.lastApp = claimed[claimed.length - 1].app_key;
      for (const e of claimed) {
        if (e.attempts === 1 && e.first_attempt_at === now) this.o.onFirstAttempt?.(now - e.created_at); // its first claim
        this.launch(e, now);
      }
      if (claimed.length === room) this.again = true; // probably more due: go on at once
    } while (this.again && !this.stopped);
  }

  /**
   * The postback apps with free slots and how many each may take, in turn from where the last
   * pass stopped so that many busy apps share the room fairly. An app at its cap is not read at
   * all, so its backlog costs nothing while it waits.
   */
  private want(now: number): Array<[string, number]> {
    const apps = this.o.outbox.pendingApps();
    const start = Math.max(0, apps.findIndex((a) => a > this.lastApp));
    const out: Array<[string, number]> = [];
    for (let i = 0; i < apps.length; i++) {
      const app = apps[(start + i) % apps.length];
      if (this.o.apps(app, now)?.delivery.method === 'bucket') continue; // the bucket exporter's
      const free = this.o.perApp - (this.perAppInFlight.get(app) ?? 0);
      if (free > 0) out.push([app, free]);
    }
    return out;
  }

  private launch(e: OutboxEntry, now: number): void {
    this.inFlight++;
    this.perAppInFlight.set(e.app_key, (this.perAppInFlight.get(e.app_key) ?? 0) + 1);
    const p = this.attempt(e, now)
      .then((r) => this.settle(e, r), (err) => this.settle(e, { outcome: 'network_error', error: `internal error while sending: ${String(err)}` }))
      .finally(() => {
        this.sends.delete(p);
        this.inFlight--;
        const left = this.perAppInFlight.get(e.app_key)! - 1;
        if (left) this.perAppInFlight.set(e.app_key, left);
        else this.perAppInFlight.delete(e.app_key);
        this.refill();
      });
    this.sends.add(p);
  }

  private async attempt(e: OutboxEntry, now: number): Promise<SendResult> {
    let app = this.o.apps(e.app_key, now);
    if (app?.delivery.method !== 'postback') app = this.o.apps(e.app_key, now, true); // just changed? read again before giving up
    if (!app) return { outcome: 'refused', error: `app ${e.app_key} no longer exists` };
    if (app.delivery.method !== 'postback') {
      return { outcome: 'refused', error: `app ${e.app_key} is set to ${app.delivery.method} delivery, not postback; set a postback URL, then replay` };
    }
    const secret = app.secrets[0]?.value;
    if (!secret) return { outcome: 'refused', error: `app ${e.app_key} has no secret to sign with` };
    return this.o.send(app.delivery.url, secret, e, now);
  }

  private settle(e: OutboxEntry, r: SendResult): void {
    this.o.onAttempt?.(r.outcome);
    if (r.outcome === 'success') return this.done.ack(e);
    if (r.outcome === 'refused') return this.done.kill(e, r.error ?? 'refused');
    const decision = nextRetry(e.attempts, e.replayed_at ?? e.created_at, this.o.clock(), this.o.random, this.o.backoff);
    if ('dead' in decision) this.done.kill(e, `${decision.reason}; last: ${r.error}`);
    else this.done.retry(e, decision.retryAt, r.error ?? r.outcome);
  }

  private report(err: unknown): void {
    if (this.o.onError) this.o.onError(err);
    else console.error(err);
  }
}
