/**
 * What the exporter reports, as plain data, and its translation into counters. The delivery
 * worker runs in its own thread; its metrics bridge (`WorkerMetrics` in ../service.ts) has the
 * `inc`/`observe` shape of `MetricsSink`, and carries the counts to the main thread's /metrics.
 */
export interface ExportEvent {
  app_key: string;
  provider: string;
  /** ok: uploaded and acked; failed: retried later; dead: given up; released: handed back unsent. */
  outcome: 'ok' | 'failed' | 'dead' | 'released';
  triggers: number;
  /** gzip bytes sent (0 unless ok). */
  bytes: number;
  /** upload time in ms (0 when nothing was sent). */
  ms: number;
}

export interface MetricsSink {
  inc(name: string, help: string, labels: Record<string, string>, by?: number): void;
  observe(name: string, help: string, labels: Record<string, string>, seconds: number): void;
}

/** Counters per app (contract §6: delivery attempts and failures); upload time per provider. */
export function recordExport(sink: MetricsSink): (e: ExportEvent) => void {
  return (e) => {
    const app = { app_key: e.app_key };
    if (e.triggers > 0) sink.inc('dwell_bucket_export_triggers_total', 'triggers leaving a bucket batch, by app and outcome (ok, failed, dead, released)', { ...app, outcome: e.outcome }, e.triggers);
    if (e.outcome !== 'ok' && e.outcome !== 'failed') return;
    sink.inc('dwell_bucket_export_attempts_total', 'bucket uploads, by app and outcome (ok, failed)', { ...app, outcome: e.outcome });
    sink.observe('dwell_bucket_export_upload_seconds', 'time of one bucket upload, by provider', { provider: e.provider }, e.ms / 1000);
    if (e.outcome === 'ok') sink.inc('dwell_bucket_export_bytes_total', 'gzip bytes uploaded to buckets, by app', app, e.bytes);
  };
}
