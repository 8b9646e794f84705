/**
 * The trigger queue's streams and its consumer, created by whichever node comes first (adding a
 * stream or consumer that exists with the same settings is a no-op, so every node may try).
 *
 * - DWELL_OUTBOX, a work queue: a trigger stays until a delivery worker acks it. Publishes carry
 *   the trigger id as `msgID`, so an enqueue retried after a lost acknowledgement is stored once.
 * - DWELL_DEAD: triggers given up on, kept until the retention sweep or a replay removes them.
 * - One durable pull consumer on DWELL_OUTBOX shared by every node: the server hands each
 *   message to one node at a time and hands it again if that node does not ack it within
 *   `ackWaitMs` (a node killed mid-send). Retries wait in the consumer (`nak` with a delay), so
 *   `max_ack_pending` bounds triggers in hand *and* waiting for a retry, cluster-wide: it is set
 *   far above any healthy backlog so that one app's receiver being down cannot stall the rest.
 */
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { creating } from './create.js';
import { DEAD_STREAM, DELIVERY_CONSUMER, OUTBOX_STREAM } from './outbox-subjects.js';

export interface OutboxStreamOptions {
  replicas: number;
  /** How long a node may hold a trigger without acking before another node gets it, ms. */
  ackWaitMs: number;
  maxAckPending?: number;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;

export async function ensureOutboxStreams(jsm: JetStreamManager, o: OutboxStreamOptions): Promise<void> {
  await addOrKeep(jsm, {
    name: OUTBOX_STREAM, subjects: ['dwell.outbox.>'], retention: RetentionPolicy.Workqueue, storage: StorageType.File,
    num_replicas: o.replicas, duplicate_window: nanos(120_000), allow_direct: true,
  });
  await addOrKeep(jsm, {
    name: DEAD_STREAM, subjects: ['dwell.dead.>'], retention: RetentionPolicy.Limits, storage: StorageType.File,
    num_replicas: o.replicas, allow_direct: true,
  });
  const consumer = {
    durable_name: DELIVERY_CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(o.ackWaitMs), max_deliver: -1, max_ack_pending: o.maxAckPending ?? 1_000_000,
  };
  try {
    await jsm.consumers.add(OUTBOX_STREAM, consumer);
  } catch {
    await jsm.consumers.update(OUTBOX_STREAM, DELIVERY_CONSUMER, { ack_wait: consumer.ack_wait, max_ack_pending: consumer.max_ack_pending });
  }
}

async function addOrKeep(jsm: JetStreamManager, cfg: Parameters<JetStreamManager['streams']['add']>[0] & { name: string }): Promise<void> {
  try {
    await creating(() => jsm.streams.add(cfg));
  } catch (err) {
    // Exists with other settings (replicas chosen by an earlier node): keep it as it is.
    await jsm.streams.info(cfg.name).catch(() => { throw err; });
  }
}
