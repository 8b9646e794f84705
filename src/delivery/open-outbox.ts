/**
 * Opens the trigger queue where `DWELL_STATE` says state lives: the embedded LMDB outbox in the
 * data directory, or the JetStream streams every node of a cluster shares. The HTTP thread
 * opens one to publish, list and purge; the delivery worker opens its own to consume.
 */
import type { StateTarget } from '../config.js';
import type { TriggerQueue } from '../state/outbox-types.js';
import { Outbox } from './outbox.js';

export async function openOutbox(state: StateTarget, dataDir: string, opts: { consume: boolean; name?: string }): Promise<TriggerQueue> {
  if (state.kind === 'lmdb') return new Outbox(dataDir);
  // Loaded only in cluster mode: the NATS clients cost an embedded node's start-up nothing.
  const { NatsOutbox } = await import('../state/nats/outbox.js');
  return NatsOutbox.open(state.servers, { consume: opts.consume, statsMs: opts.consume ? 0 : undefined, name: opts.name });
}

