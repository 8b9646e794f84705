/**
 * What the HTTP thread hands the delivery worker (workers/delivery.ts) and what each sender in it
 * gets and offers: the contract both sides of the thread import, so neither imports the other.
 */
import type { StateTarget } from '../config.js';
import type { SharedKeys } from '../secrets/keyring.js';
import type { AppSettings } from './app-settings.js';
import type { TriggerQueue as Outbox } from './outbox.js';
import type { WorkerMetrics } from './worker-metrics.js';

/** Tunables of the delivery worker; every one has a default. */
export interface DeliverySettings {
  /** Postback sends in flight per app (DWELL_POSTBACK_CONCURRENCY). */
  perApp?: number;
  /** Postback sends in flight in all. */
  maxInFlight?: number;
  /** Polling interval of the outbox, ms (DWELL_DELIVERY_POLL_MS). */
  pollMs?: number;
  /** A 2xx must arrive within this, ms. */
  timeoutMs?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** A bucket batch closes this long after its oldest trigger, ms (DWELL_EXPORT_WINDOW_MS). */
  exportWindowMs?: number;
  /** ... or at this many bytes of JSON lines (DWELL_EXPORT_MAX_BYTES). */
  exportMaxBytes?: number;
  /** One bucket upload's deadline, ms (DWELL_EXPORT_UPLOAD_TIMEOUT_MS). */
  exportUploadTimeoutMs?: number;
}

export interface WorkerInit extends DeliverySettings {
  dataDir: string; state: StateTarget; allowPrivate: boolean; keys?: SharedKeys;
  /** The server's movable clock (time/clock.ts), when tests move time; unset: the real clock. */
  clock?: SharedArrayBuffer;
}

/** What a sender running in the delivery worker gets, and what it must offer. */
export interface WorkerContext {
  init: WorkerInit;
  outbox: Outbox;
  apps: AppSettings;
  metrics: WorkerMetrics;
}

export interface DeliverySender {
  readonly name: string;
  start(): void;
  /** Something was enqueued or replayed: look now rather than at the next poll. */
  wake(): void;
  /** Stop taking work, finish or release what is in hand. */
  stop(): Promise<void>;
}
