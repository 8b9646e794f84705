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

  /**
   * The pending ones deleted one by one, the dead ones purged by subject filter. Not a filtered
   * purge of the live queue: on nats-server 2.9 it also dropped other users' triggers waiting in
   * the delivery consumer for their retry (a filtered purge moves the consumer past every
   * sequence below the stream's new first one), so they were never sent again.
   */
  async eraseUser(app: string, user: string): Promise<Removed> {
    const seqs: number[] = [];
    for await (const m of scan(this.s.jsm, OUTBOX_STREAM, userFilter('outbox', app, user))) seqs.push(m.seq);
    const pending = await this.deleteEach(seqs);
    const d = await this.s.jsm.streams.purge(DEAD_STREAM, { filter: userFilter('dead', app, user) });
    return { pending, dead: d.purged };
  }

  /**
   * At most `max` pending triggers deleted one by one (as eraseUser, so other apps' retries stay
   * queued), then the dead ones purged by subject filter; the caller calls again until 0.
   */
  async deleteApp(app: string, max = 2000): Promise<number> {
    let n = 0, seen = 0;
    do {
      const seqs: number[] = [];
      for await (const m of scan(this.s.jsm, OUTBOX_STREAM, appFilter('outbox', app), max)) seqs.push(m.seq);
      seen = seqs.length;
      n = await this.deleteEach(seqs);
      // A full batch that was all delivered meanwhile says nothing of what follows it: look again.
    } while (n === 0 && seen === max);
    // A batch that deleted pending ones is followed by another call: the dead go once none is left.
    if (n > 0) return n;
    const d = await this.s.jsm.streams.purge(DEAD_STREAM, { filter: appFilter('dead', app) });
    return d.purged;
  }

  /** Deletes these pending triggers, DELETES_IN_FLIGHT at a time; answers how many were still there. */
  private async deleteEach(seqs: readonly number[]): Promise<number> {
    let next = 0, deleted = 0;
    const lane = async () => {
      while (next < seqs.length) if (await this.s.jsm.streams.deleteMessage(OUTBOX_STREAM, seqs[next++], false).catch(gone)) deleted++;
    };
    await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, seqs.length) }, lane));
    return deleted;
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

/** Deletes of pending triggers in flight at once (an app's thousands take seconds, not a round trip each in turn). */
const DELETES_IN_FLIGHT = 64;

/** A message deleted meanwhile (delivered and acked) is not an error of the erase; anything else is. */
function gone(err: unknown): false {
  if ((err as { code?: number })?.code === 10037 || /no message found/i.test(String((err as Error)?.message ?? err))) return false;
  throw err;
}
