/**
 * POST /v1/detect (contract §2): the signed body is handed as sent to a detection worker (which
 * inflates it), and answered synchronously with the bytes the worker wrote, or queued durably
 * for postback or bucket delivery before the 202.
 */
import type { StateTarget } from '../config.js';
import { randomUUID } from 'node:crypto';
import { DwellError } from '../errors.js';
import { taskApp, type AppRecord } from '../schemas/app.js';
import type { StoreHandle } from '../venues/store.js';
import type { RawBody } from '../http/body.js';
import { isGzip } from '../http/json-body.js';
import type { DetectPool } from './pool.js';
import type { Exchange, Reply } from '../http/reply.js';
import type { Metrics } from '../http/metrics.js';
import type { TriggerQueue as Outbox } from '../delivery/outbox.js';
import { triggersOf } from '../delivery/triggers.js';
import type { RecentDetections } from '../recent/types.js';
import { clock } from '../time/clock.js';

export interface DetectDeps {
  pool: DetectPool;
  store: () => StoreHandle | null;
  outbox: Outbox;
  dataDir: string;
  metrics: Metrics;
  /** Recent detections for the explorer (recent/), when kept. */
  recent?: RecentDetections;
  /** Where user state lives (config.state), for the worker. */
  state: StateTarget;
}

const utf8 = new TextEncoder();

export async function detectHandler(deps: DetectDeps, ex: Exchange, app: AppRecord, raw: RawBody): Promise<Reply> {
  const store = deps.store();
  if (!store) throw new DwellError('unavailable', 'the venue store is still loading', undefined, 2);
  const now = clock.now();
  const sync = app.delivery.method === 'sync', gzip = isGzip(ex);
  // The worker takes the body's buffer: a copy is kept only for an app whose detections are recorded.
  const kept = deps.recent?.wants(app.app_key) ? new Uint8Array(raw.bytes) : undefined;
  const out = await deps.pool.run({
    body: raw.bytes,
    gzip,
    sync,
    app: taskApp(app),
    store,
    dataDir: deps.dataDir,
    state: deps.state,
    now,
    requestId: ex.requestId,
  });
  if (!out.ok) throw DwellError.fromJSON(out.error);
  for (const outcome of ['venue', 'transit', 'no_venue'] as const) {
    if (out.tally[outcome]) deps.metrics.detections.inc({ kind: out.kind, outcome }, out.tally[outcome]);
  }
  for (const [flag, n] of Object.entries(out.tally.flags ?? {})) deps.metrics.integrityFlags.inc({ flag }, n);
  if (kept) {
    const user = 'response' in out ? out.user : out.user_info.device_id ?? (out.user_info.user_id || null);
    const answer = 'response' in out ? () => out.response : () => utf8.encode(JSON.stringify({ data: out.items, geofence_events: out.geofence_events, place_events: out.place_events, region_events: out.region_events }));
    deps.recent!.record(app.app_key, { at: now, user, kind: out.kind, request_id: 'response' in out ? null : out.request_id, tally: out.tally, body: kept, gzip, answer });
  }
  // The worker answered a synchronous app with the response already serialised.
  if ('response' in out) return { status: 200, body: out.response };
  const requestId = out.request_id ?? randomUUID();
  const dropped = (n: number) => deps.metrics.integrityDropped.inc({}, n);
  await deps.outbox.enqueue(app.app_key, triggersOf(app.app_key, requestId, out, app.delivery, app.integrity, dropped));
  return { status: 202, body: { result: 'SUCCESS', request_id: requestId } };
}
