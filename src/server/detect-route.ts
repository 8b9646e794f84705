/**
 * POST /v1/detect (contract §2): the signed body is inflated, handed to a detection worker, and
 * answered synchronously, or queued durably for postback or bucket delivery before the 202.
 */
import { randomUUID } from 'node:crypto';
import { DwellError } from '../errors.js';
import type { AppRecord } from '../schemas/app.js';
import type { SyncResponse } from '../schemas/visit.js';
import type { StoreHandle } from '../venues/store.js';
import type { RawBody } from './body.js';
import { plainBytes } from './json-body.js';
import type { DetectPool } from './pool.js';
import type { Exchange, Reply } from './reply.js';
import type { Metrics } from './metrics.js';
import type { Outbox } from '../delivery/outbox.js';
import { triggersOf } from '../delivery/triggers.js';

export interface DetectDeps {
  pool: DetectPool;
  store: () => StoreHandle | null;
  outbox: Outbox;
  dataDir: string;
  metrics: Metrics;
}

export async function detectHandler(deps: DetectDeps, ex: Exchange, app: AppRecord, raw: RawBody): Promise<Reply> {
  const store = deps.store();
  if (!store) throw new DwellError('unavailable', 'the venue store is still loading', undefined, 2);
  const json = await plainBytes(ex, raw);
  const now = Date.now();
  const out = await deps.pool.run({
    body: json,
    app: { app_key: app.app_key, confirm_dwell_s: app.confirm_dwell_s },
    store,
    dataDir: deps.dataDir,
    now,
  });
  if (!out.ok) throw DwellError.fromJSON(out.error);
  for (const item of out.items) {
    deps.metrics.detections.inc({ kind: out.kind, outcome: item.visit.place_id ? 'venue' : item.visit.event_type === 'transit' ? 'transit' : 'no_venue' });
  }
  if (app.delivery.method === 'sync') {
    const body: SyncResponse = { data: out.items, geofence_events: out.geofence_events, result: 'SUCCESS' };
    return { status: 200, body };
  }
  const requestId = out.request_id ?? randomUUID();
  await deps.outbox.enqueue(app.app_key, triggersOf(app.app_key, requestId, out, now));
  return { status: 202, body: { result: 'SUCCESS', request_id: requestId } };
}
