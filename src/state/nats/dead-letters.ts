/**
 * Dead triggers in a stream of their own (DWELL_DEAD), under the same `<app>.<user hash>`
 * subjects as the queue: listed and replayed through the admin API, purged by the retention
 * sweep, erased with their user or app. Appended in the order they die, so the retention sweep
 * purges a prefix of the stream.
 */
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { EntryState, ListedEntry } from '../outbox-types.js';
import { scan, stateOf } from './outbox-scan.js';
import { appFilter, DEAD_STREAM, H } from './outbox-subjects.js';
import { clock } from '../../time/clock.js';

export class DeadLetters {
  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager) {}

  /** Keeps a trigger given up on; `subject` is its queue subject. Resolves once stored. */
  async add(subject: string, body: Uint8Array, s: EntryState & { last_error: string }, now = clock.now()): Promise<void> {
    const h = headers();
    h.set(H.id, s.id);
    h.set(H.created, String(s.created_at));
    if (s.replayed_at !== undefined) h.set(H.replayed, String(s.replayed_at));
    h.set(H.attempts, String(s.attempts));
    h.set(H.error, s.last_error.replace(/[\r\n]+/g, ' ').slice(0, 1000));
    h.set(H.deadAt, String(now));
    await this.js.publish(subject.replace(/^dwell\.outbox\./, 'dwell.dead.'), body, { headers: h });
  }

  async list(app: string, limit: number): Promise<ListedEntry[]> {
    const out: ListedEntry[] = [];
    for await (const m of scan(this.jsm, DEAD_STREAM, appFilter('dead', app), limit)) out.push({ ...stateOf(m, 'dead'), body: Buffer.from(m.data).toString() });
    return out;
  }

  /**
   * Requeues an app's dead triggers: each is published to the queue again (a fresh 24 h window,
   * from `now`), then removed from here. A crash in between delivers it once more: at least once.
   */
  async replay(app: string, now: number): Promise<number> {
    let n = 0;
    for await (const m of scan(this.jsm, DEAD_STREAM, appFilter('dead', app))) {
      const h = headers();
      copy(m.header, h, [H.id, H.created]);
      h.set(H.replayed, String(now));
      await this.js.publish(m.subject.replace(/^dwell\.dead\./, 'dwell.outbox.'), m.data, { headers: h });
      await this.jsm.streams.deleteMessage(DEAD_STREAM, m.seq, false);
      n++;
    }
    return n;
  }

  /** Removes up to `max` triggers that died at or before `cutoff`: the stream's oldest. */
  async purgeDead(cutoff: number, max: number): Promise<number> {
    let upTo = 0;
    let n = 0;
    for await (const m of scan(this.jsm, DEAD_STREAM, 'dwell.dead.>', max)) {
      if (stateOf(m, 'dead').dead_at! > cutoff) break;
      upTo = m.seq;
      n++;
    }
    if (n === 0) return 0;
    await this.jsm.streams.purge(DEAD_STREAM, { seq: upTo + 1 });
    return n;
  }
}

function copy(from: MsgHdrs | undefined, to: MsgHdrs, keys: string[]): void {
  for (const k of keys) {
    const v = from?.get(k);
    if (v) to.set(k, v);
  }
}
