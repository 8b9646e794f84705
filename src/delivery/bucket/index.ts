/**
 * The bucket exporter as the delivery worker (workers/delivery.ts) runs it: one more entry in its
 * SENDERS. Typed by shape rather than by importing ../service.ts, so this folder builds alone.
 *
 * Settings come through the worker's init: exportWindowMs, exportMaxBytes, exportUploadTimeoutMs
 * (DWELL_EXPORT_WINDOW_MS, DWELL_EXPORT_MAX_BYTES, DWELL_EXPORT_UPLOAD_TIMEOUT_MS); unset, the
 * contract's defaults apply.
 */
import { log } from '../../log.js';
import type { AppRecord } from '../../schemas/app.js';
import type { TriggerQueue as Outbox } from '../outbox.js';
import { recordExport, type MetricsSink } from './events.js';
import { BucketExporter } from './exporter.js';
import { clock } from '../../time/clock.js';

export interface BucketWorkerContext {
  init: { dataDir: string; exportWindowMs?: number; exportMaxBytes?: number; exportUploadTimeoutMs?: number };
  outbox: Outbox;
  apps: { get(appKey: string, now: number): AppRecord | undefined };
  metrics: MetricsSink;
}

export function bucketExporter(ctx: BucketWorkerContext) {
  const exporter = new BucketExporter({
    outbox: ctx.outbox,
    appSettings: (appKey) => ctx.apps.get(appKey, clock.now()),
    windowMs: ctx.init.exportWindowMs,
    maxBytes: ctx.init.exportMaxBytes,
    uploadTimeoutMs: ctx.init.exportUploadTimeoutMs,
    onEvent: recordExport(ctx.metrics),
  });
  return {
    name: 'bucket',
    start: () => {
      exporter.start();
      log.debug('bucket exporter started');
    },
    wake: () => exporter.wake(),
    stop: () => exporter.stop(),
  };
}
