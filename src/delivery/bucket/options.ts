/** The exporter's knobs and their defaults (contract §3: 30 s window, 5 MB batches, 24 h of retries). */
import type { AppRecord } from '../../schemas/app.js';
import type { TriggerQueue as Outbox } from '../outbox.js';
import type { ExportEvent } from './events.js';
import type { UploaderFactory } from './uploader.js';
import { clock } from '../../time/clock.js';

export interface BucketExporterOptions {
  outbox: Outbox;
  /** Fresh app records (settings may change while we run); undefined for unknown apps. */
  appSettings: (appKey: string) => AppRecord | undefined;
  now?: () => number;
  /** Longest a trigger waits in an open batch (contract: 30 s). */
  windowMs?: number;
  /** Uncompressed JSON-lines bytes at which a batch closes (contract: 5 MB). */
  maxBytes?: number;
  uploadTimeoutMs?: number;
  /** Interval of the `due` poll, the guarantee behind wake-ups. */
  pollMs?: number;
  /** Uploads in flight across all apps. */
  concurrency?: number;
  /** Past this age a failing trigger is parked as dead (contract §3: 24 h, as postbacks). */
  maxAgeMs?: number;
  /** JSON bytes held in memory beyond which no more triggers are claimed until uploads drain. */
  maxHeldBytes?: number;
  uploaders?: UploaderFactory;
  onEvent?: (e: ExportEvent) => void;
}

export type ExporterSettings = Required<Omit<BucketExporterOptions, 'onEvent' | 'uploaders'>>;

export function withDefaults(opts: BucketExporterOptions): ExporterSettings {
  const windowMs = opts.windowMs ?? 30_000;
  const uploadTimeoutMs = opts.uploadTimeoutMs ?? 30_000;
  return {
    outbox: opts.outbox, appSettings: opts.appSettings, now: opts.now ?? clock.now,
    windowMs, maxBytes: opts.maxBytes ?? 5_000_000, uploadTimeoutMs,
    pollMs: opts.pollMs ?? Math.max(10, Math.min(500, Math.floor(windowMs / 5))),
    concurrency: opts.concurrency ?? 4, maxAgeMs: opts.maxAgeMs ?? 86_400_000,
    maxHeldBytes: opts.maxHeldBytes ?? 64_000_000,
  };
}
