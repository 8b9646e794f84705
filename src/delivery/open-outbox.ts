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

/**
 * What src/privacy/* reads today (`outbox.index.*`, shaped like the LMDB outbox). For the
 * JetStream queue the same calls go to its subject purges; a user's export there needs
 * `userTriggers` (asynchronous), which privacy/export.ts does not call yet.
 */
export function forPrivacy(q: TriggerQueue): Outbox {
  if (q instanceof Outbox) return q;
  const index = {
    eraseUser: (app: string, user: string) => q.eraseUser(app, user),
    deleteApp: (app: string, max?: number) => q.deleteApp(app, max),
    purgeDead: (cutoff: number, max: number) => q.purgeDead(cutoff, max),
    idsOf: () => [],
    entry: () => undefined,
  };
  return { ...q, index } as unknown as Outbox;
}
