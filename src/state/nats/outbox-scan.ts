/**
 * Reading the queue's streams without consuming them: a walk over the messages of one subject
 * filter (an app's or a user's), and the entry state a stored message stands for. For admin
 * listings, exports, replays and erasure: rare calls, one round trip per message.
 *
 * The walk asks the stream's leader (STREAM.MSG.GET), not any replica (a direct get): a replica
 * behind the leader answers "no message" for a trigger enqueued a moment ago, and an erase that
 * trusted it would leave that trigger to be sent.
 */
import type { JetStreamManager, MsgRequest, StoredMsg } from '@nats-io/jetstream';
import type { EntryState, TriggerStatus } from '../outbox-types.js';
import { appOfSubject, H } from './outbox-subjects.js';

export async function* scan(jsm: JetStreamManager, stream: string, filter: string, limit = Infinity): AsyncGenerator<StoredMsg> {
  let seq = 0;
  for (let n = 0; n < limit; n++) {
    // The server takes next_by_subj on this API since 2.9; the client's type lists only seq and last_by_subj.
    const m = await jsm.streams.getMessage(stream, { seq, next_by_subj: filter } as unknown as MsgRequest);
    if (!m) return;
    yield m;
    seq = m.seq + 1;
  }
}

const num = (v: string | undefined): number | undefined => (v ? Number(v) : undefined);

/**
 * A stored trigger's state. A pending one's attempts and schedule live in the consumer, not in
 * the message: listed, it shows 0 attempts, due at its creation.
 */
export function stateOf(m: Pick<StoredMsg, 'subject' | 'header' | 'time'>, status: TriggerStatus): EntryState {
  const h = (k: string) => m.header?.get(k) || undefined;
  const created = num(h(H.created)) ?? m.time.getTime();
  const s: EntryState = { id: h(H.id) ?? '', app_key: appOfSubject(m.subject), status, attempts: num(h(H.attempts)) ?? 0, next_at: created, created_at: created };
  const replayed = num(h(H.replayed));
  if (replayed !== undefined) s.replayed_at = replayed;
  if (h(H.error)) s.last_error = h(H.error);
  if (status === 'dead') s.dead_at = num(h(H.deadAt)) ?? m.time.getTime();
  return s;
}
