/**
 * The trigger queue on NATS JetStream (cluster mode, contract §8): every node publishes to and
 * consumes from the same streams, so a trigger accepted by one node is delivered by whichever
 * node is free, and by another if that one dies. Streams, subjects and the consumer are
 * described in outbox-subjects.ts and outbox-streams.ts; consuming in outbox-claims.ts; dead
 * triggers in dead-letters.ts.
 *
 * `enqueue` resolves once every trigger's publish is acknowledged by the stream (stored on its
 * replicas): the 202 waits for that. A cluster that cannot be reached makes it fail with 503
 * `unavailable` and a Retry-After within the request timeout, never a 500 or a hang.
 *
 * Gauges (depth, pending, oldest age) are read from the stream's info every few seconds, so a
 * scrape costs no round trip.
 */
import { headers } from '@nats-io/transport-node';
import type { Trigger } from '../../schemas/visit.js';
import type { EntryState, ListedEntry, OutboxEntry, Removed, Results, TriggerQueue, TriggerStatus, EntryKey } from '../outbox-types.js';
import { connectNats, retrying, unavailable, type NatsState } from './connect.js';
import { DeadLetters } from './dead-letters.js';
import { OutboxClaims, type ClaimOptions } from './outbox-claims.js';
import { scan, stateOf } from './outbox-scan.js';
import { DEFAULT_ACK_WAIT_MS, ensureOutboxStreams } from './outbox-streams.js';
import { appFilter, DEAD_STREAM, H, OUTBOX_STREAM, ownerOf, subjectOf, userFilter } from './outbox-subjects.js';
import { clock } from '../../time/clock.js';

export interface NatsOutboxOptions extends ClaimOptions {
  /** Pull and deliver (the delivery worker) or only publish and manage (the HTTP thread). */
  consume?: boolean;
  ackWaitMs?: number;
  /** How often the gauges are refreshed, ms; 0: never. */
  statsMs?: number;
  name?: string;
}

export class NatsOutbox implements TriggerQueue {
  private readonly wakeups = new Set<() => void>();
  private readonly dead: DeadLetters;
  private readonly claims: OutboxClaims | undefined;
  private stats = { pending: 0, dead: 0, firstAt: 0 };
  private statsTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly s: NatsState, opts: NatsOutboxOptions) {
    this.dead = new DeadLetters(s.js, s.jsm);
    if (opts.consume) {
      this.claims = new OutboxClaims(s.js, this.dead, () => this.wake(), { heartbeatMs: (opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) / 3, ...opts });
      this.claims.start();
    }
    if (opts.statsMs !== 0) {
      this.statsTimer = setInterval(() => void this.refresh(), opts.statsMs ?? 5_000);
      this.statsTimer.unref();
      void this.refresh();
    }
  }

  static async open(servers: readonly string[], opts: NatsOutboxOptions = {}): Promise<NatsOutbox> {
    const s = await connectNats(servers, { name: opts.name });
    try {
      // A new three-server cluster can take seconds to place R3 streams: retried, as opening a bucket is (kv.ts).
      await retrying(() => ensureOutboxStreams(s.jsm, { replicas: s.replicas, ackWaitMs: opts.ackWaitMs ?? DEFAULT_ACK_WAIT_MS }), 30_000);
    } catch (err) {
      await s.close();
      throw err;
    }
    return new NatsOutbox(s, opts);
  }

  async enqueue(appKey: string, triggers: Trigger[], now = clock.now()): Promise<void> {
    if (triggers.length === 0) return;
    try {
      await Promise.all(triggers.map((t) => {
        const h = headers();
        h.set(H.id, t.data.id);
        h.set(H.created, String(now));
        // The trigger id as msgID: a publish repeated after a lost acknowledgement (retried through a failover) is stored once.
        const body = JSON.stringify(t);
        return retrying(() => this.s.js.publish(subjectOf('outbox', appKey, ownerOf(t)), body, { msgID: t.data.id, headers: h }));
      }));
    } catch (err) {
      throw unavailable(err);
    }
    this.wake();
  }

  pendingApps(): string[] {
    return this.claims?.pendingApps() ?? [];
  }

  claimDue(want: Iterable<readonly [string, number]>, now: number, total?: number): OutboxEntry[] {
    return this.claims?.claimDue(want, now, total) ?? [];
  }

  async settle(r: Results): Promise<void> {
    await this.claims?.settle(r);
  }

  ack(list: EntryKey[]): Promise<void> {
    return this.settle({ acks: list });
  }

  retry(list: EntryKey[], nextAt: number, error: string): Promise<void> {
    return this.settle({ retries: list.map(({ app_key, id }) => ({ app_key, id, at: nextAt, error })) });
  }

  leased(): number {
    return this.claims?.leased ?? 0;
  }

  async list(appKey: string, status: TriggerStatus, limit = 1000): Promise<ListedEntry[]> {
    try {
      if (status === 'dead') return await this.dead.list(appKey, limit);
      const out: ListedEntry[] = [];
      for await (const m of scan(this.s.jsm, OUTBOX_STREAM, appFilter('outbox', appKey), limit)) out.push({ ...stateOf(m, 'pending'), body: Buffer.from(m.data).toString() });
      return out;
    } catch (err) {
      throw unavailable(err);
    }
  }

  async replayDead(appKey: string, now = clock.now()): Promise<number> {
    const n = await this.dead.replay(appKey, now).catch((err) => { throw unavailable(err); });
    if (n) this.wake();
    return n;
  }

  depth(): number {
    return this.stats.pending + this.stats.dead;
  }

  pendingCount(): number {
    return this.stats.pending;
  }

  oldestPendingAge(now = clock.now()): number {
    return this.stats.pending && this.stats.firstAt ? Math.max(0, now - this.stats.firstAt) : 0;
  }

  onEnqueue(wake: () => void): () => void {
    this.wakeups.add(wake);
    return () => this.wakeups.delete(wake);
  }

  /** Purges by subject filter on both streams: one request each, whatever the number of triggers. */
  async eraseUser(app: string, user: string): Promise<Removed> {
    const [p, d] = await Promise.all([
      this.s.jsm.streams.purge(OUTBOX_STREAM, { filter: userFilter('outbox', app, user) }),
      this.s.jsm.streams.purge(DEAD_STREAM, { filter: userFilter('dead', app, user) }),
    ]);
    return { pending: p.purged, dead: d.purged };
  }

  /** Everything of the app goes at once, whatever `max`: the next call answers 0. */
  async deleteApp(app: string): Promise<number> {
    const [p, d] = await Promise.all([
      this.s.jsm.streams.purge(OUTBOX_STREAM, { filter: appFilter('outbox', app) }),
      this.s.jsm.streams.purge(DEAD_STREAM, { filter: appFilter('dead', app) }),
    ]);
    return p.purged + d.purged;
  }

  purgeDead(cutoff: number, max: number): Promise<number> {
    return this.dead.purgeDead(cutoff, max).catch((err) => { throw unavailable(err); });
  }

  async userTriggers(app: string, user: string): Promise<Array<{ state: EntryState; trigger: unknown }>> {
    const out: Array<{ state: EntryState; trigger: unknown }> = [];
    for (const [stream, kind] of [[OUTBOX_STREAM, 'outbox'], [DEAD_STREAM, 'dead']] as const) {
      for await (const m of scan(this.s.jsm, stream, userFilter(kind, app, user))) {
        out.push({ state: stateOf(m, kind === 'dead' ? 'dead' : 'pending'), trigger: JSON.parse(Buffer.from(m.data).toString()) });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.statsTimer);
    await this.claims?.stop();
    await this.s.close();
  }

  private wake(): void {
    for (const w of this.wakeups) w();
  }

  private async refresh(): Promise<void> {
    try {
      const [o, d] = await Promise.all([this.s.jsm.streams.info(OUTBOX_STREAM), this.s.jsm.streams.info(DEAD_STREAM)]);
      this.stats = { pending: o.state.messages, dead: d.state.messages, firstAt: o.state.first_ts ? Date.parse(o.state.first_ts) : 0 };
    } catch { /* unreachable: the gauges keep their last values */ }
  }
}
