/**
 * The consuming side of the JetStream queue, in a node's delivery worker: pulls triggers from
 * the consumer every node shares into a small local buffer, and serves the senders' `claimDue`
 * and `settle` from it, so the postback dispatcher and the bucket exporter run unchanged on
 * either engine.
 *
 * - A message taken from the buffer is held by this node until settled: ack (delivered), `nak`
 *   with the backoff's delay (retry: the server hands it out again when due, to any node), or
 *   stored as dead then acked. Held messages are kept alive with `working()`; if this node dies
 *   the server hands them to another node after the ack wait: at least once, nothing lost.
 * - What sits in the buffer unclaimed for `holdMs` (its app at this node's send cap) goes back
 *   with a short delay, so another node with free slots can take it.
 */
import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { log } from '../../log.js';
import type { OutboxEntry, Results } from '../outbox-types.js';
import type { DeadLetters } from './dead-letters.js';
import { appOfSubject, DELIVERY_CONSUMER, H, OUTBOX_STREAM } from './outbox-subjects.js';
import { clock } from '../../time/clock.js';
import { monotonicMs } from '../../time/wall.js';

export interface ClaimOptions {
  /** Messages buffered plus held by this node, at most. */
  limit?: number;
  holdMs?: number;
  /** How often held messages are reported as still in progress, ms (below the ack wait). */
  heartbeatMs?: number;
}

interface Buffered { m: JsMsg; at: number }
interface Held { m: JsMsg; entry: OutboxEntry; beat: number }

const key = (app: string, id: string) => `${app}\u0000${id}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class OutboxClaims {
  private readonly buffer = new Map<string, Buffered[]>();
  private readonly held = new Map<string, Held>();
  private buffered = 0;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private consumer: Consumer | undefined;
  private readonly o: Required<ClaimOptions>;

  constructor(private readonly js: JetStreamClient, private readonly dead: DeadLetters, private readonly arrived: () => void, opts: ClaimOptions = {}) {
    this.o = { limit: 8192, holdMs: 2_000, heartbeatMs: 10_000, ...opts };
  }

  get leased(): number {
    return this.held.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pull();
    this.timer = setInterval(() => this.tend(), Math.min(this.o.holdMs, this.o.heartbeatMs) / 2);
  }

  pendingApps(): string[] {
    return [...this.buffer.keys()].sort();
  }

  claimDue(want: Iterable<readonly [string, number]>, now: number, total = Infinity): OutboxEntry[] {
    const out: OutboxEntry[] = [];
    for (const [app, limit] of want) {
      const q = this.buffer.get(app);
      if (!q) continue;
      const n = Math.min(limit, total - out.length, q.length);
      for (const { m } of q.splice(0, n)) {
        const entry = entryOf(m, app, now);
        this.held.set(key(app, entry.id), { m, entry, beat: monotonicMs() }); // the ack wait runs on the NATS server's real clock
        out.push(entry);
      }
      this.buffered -= n;
      if (q.length === 0) this.buffer.delete(app);
      if (out.length >= total) break;
    }
    return out;
  }

  async settle(r: Results, now = clock.now()): Promise<void> {
    const done: Promise<unknown>[] = [];
    // Acks are not waited for (no round trip each): one lost on the way only means the trigger
    // is sent again after the ack wait, which at-least-once delivery allows (receivers dedupe).
    for (const k of r.acks ?? []) this.take(k.app_key, k.id)?.m.ack();
    for (const k of r.retries ?? []) this.take(k.app_key, k.id)?.m.nak(Math.max(0, k.at - now));
    for (const k of r.kills ?? []) {
      const h = this.take(k.app_key, k.id);
      if (h) done.push(this.dead.add(h.m.subject, h.m.data, { ...h.entry, last_error: k.error }, now).then(() => h.m.ackAck()));
    }
    // A failed ack leaves the message with the consumer: it is sent again after the ack wait.
    const failed = (await Promise.allSettled(done)).find((x) => x.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  /** Stops pulling; hands back what was buffered. Held messages are the senders' to settle. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await this.loop;
    for (const q of this.buffer.values()) for (const { m } of q) m.nak();
    this.buffer.clear();
    this.buffered = 0;
  }

  private take(app: string, id: string): Held | undefined {
    const k = key(app, id);
    const h = this.held.get(k);
    this.held.delete(k);
    return h;
  }

  private async pull(): Promise<void> {
    let failing = false;
    while (this.running) {
      const room = this.o.limit - this.buffered - this.held.size;
      if (room <= 0) { await sleep(10); continue; }
      try {
        this.consumer ??= await this.js.consumers.get(OUTBOX_STREAM, DELIVERY_CONSUMER);
        const msgs = await this.consumer.fetch({ max_messages: Math.min(room, 512), expires: 1_000 });
        let n = 0;
        for await (const m of msgs) { this.add(m); n++; }
        if (n) this.arrived();
        if (failing) log.info('trigger queue reachable again');
        failing = false;
      } catch (err) {
        if (!failing) log.warn('trigger queue unreachable; delivery waits for it', { error: String((err as Error)?.message ?? err) });
        failing = true;
        this.consumer = undefined;
        await sleep(500);
      }
    }
  }

  private add(m: JsMsg): void {
    const app = appOfSubject(m.subject);
    let q = this.buffer.get(app);
    if (!q) this.buffer.set(app, (q = []));
    q.push({ m, at: monotonicMs() });
    this.buffered++;
  }

  /** Keeps held messages alive, and gives back what waited too long in the buffer. */
  private tend(): void {
    const now = monotonicMs();
    for (const h of this.held.values()) {
      if (now - h.beat >= this.o.heartbeatMs) { h.m.working(); h.beat = now; }
    }
    for (const [app, q] of this.buffer) {
      let stale = 0;
      while (stale < q.length && now - q[stale].at >= this.o.holdMs) q[stale++].m.nak(this.o.holdMs / 2);
      if (stale === 0) continue;
      q.splice(0, stale);
      this.buffered -= stale;
      if (q.length === 0) this.buffer.delete(app);
    }
  }
}

function entryOf(m: JsMsg, app: string, now: number): OutboxEntry {
  const h = (k: string) => m.headers?.get(k) || undefined;
  const created = Number(h(H.created)) || Math.floor(Number(m.info.timestampNanos) / 1e6);
  const attempts = m.info.deliveryCount;
  const e: OutboxEntry = {
    id: h(H.id) ?? '', app_key: app, status: 'pending', attempts, next_at: now, created_at: created,
    first_attempt_at: attempts === 1 ? now : created,
    body: Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength),
  };
  const replayed = Number(h(H.replayed));
  if (replayed) e.replayed_at = replayed;
  return e;
}
