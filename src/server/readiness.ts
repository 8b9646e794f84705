/**
 * GET /readyz (contract §6): ready while the venue store is open, the detection workers have
 * warmed up on it (server/warm-up.ts: a node that joins a pool under load must not serve its
 * first minute cold; with DWELL_WARM_UP=off they count as warm at once) and the delivery queues
 * run (the delivery worker has started its senders), and not while shutting down. The answer names
 * each part's state, so an operator sees which one holds readiness back. `secrets: unsealed` (no
 * DWELL_SECRET_KEY: app secrets stored in clear) is shown, not held against readiness: it is how
 * every node ran before the key existed.
 */
import { DwellError } from '../errors.js';
import type { DeliveryState } from '../delivery/service.js';
import type { StoreHandle } from '../venues/store.js';
import type { Reply } from '../http/reply.js';
import type { WorkersState } from './pool.js';

export interface ReadinessParts {
  store: StoreHandle | null; workers: WorkersState; delivery: DeliveryState; draining: boolean;
  /** Cluster mode: whether the cluster's state answers (absent in the embedded mode). */
  state?: 'up' | 'down';
  /** Whether app secrets are stored sealed with DWELL_SECRET_KEY. */
  secrets?: 'sealed' | 'unsealed';
}

export function readiness({ store, workers, delivery, draining, state, secrets }: ReadinessParts): Reply {
  const checks = { venue_store: store ? 'open' : 'loading', workers, delivery, server: draining ? 'draining' : 'serving', ...(state ? { state } : {}), ...(secrets ? { secrets } : {}) };
  const waiting = [
    !store && 'the venue store is still loading',
    store && workers !== 'warm' && 'the detection workers are warming up',
    delivery !== 'running' && `the delivery worker is ${delivery} (the delivery queues are not running)`,
    draining && 'the server is shutting down',
    state === 'down' && 'the state cluster (NATS) cannot be reached',
  ].filter(Boolean);
  if (store && waiting.length === 0) return { status: 200, body: { status: 'ready', venues: store.count, store: store.id, checks } };
  const error = new DwellError('unavailable', `not ready: ${waiting.join('; ')}`).toJSON();
  return { status: 503, body: { ...error, checks }, headers: { 'Retry-After': '2' } };
}
