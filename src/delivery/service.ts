/**
 * Delivery runs in a worker thread of its own (workers/delivery.ts) so that sending, signing and
 * outbox bookkeeping never compete with the HTTP thread. This side starts it (and starts it again
 * if it dies), forwards the outbox's enqueue wake-ups to it, and turns what it reports into
 * Prometheus metrics, with gauges read from the outbox on scrape. Its `state` feeds /readyz: the
 * queues run only while a worker has opened its stores and started its senders.
 */
import { Worker } from 'node:worker_threads';
import { log } from '../log.js';
import { clockBuffer } from '../time/clock.js';
import type { Metrics } from '../http/metrics.js';
import type { TriggerQueue as Outbox } from './outbox.js';
import type { FromWorker, ToWorker } from './thread-messages.js';
import type { StateTarget } from '../config.js';
import type { Keyring } from '../secrets/keyring.js';
import type { DeliverySettings, WorkerInit } from './worker-contract.js';

export type { DeliverySettings } from './worker-contract.js';
/** The worker's entry point, named for the dependency rule (it is started by URL below). */
export type * as DeliveryEntry from '../../workers/delivery.js';

export interface DeliveryOptions extends DeliverySettings {
  dataDir: string;
  /** Where the queue lives (DWELL_STATE); unset: the LMDB outbox in `dataDir`. */
  state?: StateTarget;
  outbox: Outbox;
  metrics: Metrics;
  allowPrivate: boolean;
  /** The operator's keys: the worker opens the sealed secrets and credentials it signs and uploads with. */
  keyring?: Keyring;
}


/** `running` from the worker's `started` until it exits; `restarting` while it waits to be spawned again. */
export type DeliveryState = 'starting' | 'running' | 'restarting' | 'stopped';

/** Buckets of every histogram the worker reports, seconds. */
export const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const WORKER_URL = new URL('../../workers/delivery.js', import.meta.url);

export interface DeliveryHandle {
  state(): DeliveryState;
  close(): Promise<void>;
}

export function startDelivery(opts: DeliveryOptions): DeliveryHandle {
  const { outbox, metrics } = opts;
  const init: WorkerInit = {
    dataDir: opts.dataDir, state: opts.state ?? { kind: 'lmdb' }, allowPrivate: opts.allowPrivate, perApp: opts.perApp, maxInFlight: opts.maxInFlight,
    pollMs: opts.pollMs, timeoutMs: opts.timeoutMs, logLevel: opts.logLevel,
    exportWindowMs: opts.exportWindowMs, exportMaxBytes: opts.exportMaxBytes, exportUploadTimeoutMs: opts.exportUploadTimeoutMs,
    keys: opts.keyring?.toShare(), clock: clockBuffer(),
  };
  const counters = new Map<string, ReturnType<Metrics['counter']>>();
  const histograms = new Map<string, ReturnType<Metrics['histogram']>>();
  const counter = (name: string, help: string) => counters.get(name) ?? counters.set(name, metrics.counter(name, help)).get(name)!;
  const histogram = (name: string, help: string) => histograms.get(name) ?? histograms.set(name, metrics.histogram(name, help, SECONDS_BUCKETS)).get(name)!;
  // Registered now, with their label names, so that they are listed before the first delivery.
  metrics.counter('dwell_postback_attempts_total', 'postback attempts by outcome', ['outcome']);
  metrics.histogram('dwell_postback_first_attempt_seconds', 'time from the 202 (trigger queued) to its first postback attempt', SECONDS_BUCKETS, []);
  metrics.gauge('dwell_outbox_pending', 'triggers waiting for delivery (queue depth)', () => outbox.pendingCount());
  metrics.gauge('dwell_outbox_dead', 'triggers given up on, listed and replayable', () => outbox.depth() - outbox.pendingCount());
  // Reads the whole schedule (one pass over the pending keys): fine at scrape intervals.
  metrics.gauge('dwell_outbox_oldest_pending_age_seconds', 'age of the oldest trigger waiting for delivery', () => outbox.oldestPendingAge() / 1000);

  let worker: Worker;
  let closing = false;
  let stopped: () => void = () => {};
  let restarts = 0;
  let state: DeliveryState = 'starting';

  const spawn = () => {
    state = 'starting';
    worker = new Worker(WORKER_URL, { workerData: init, name: 'dwell-delivery' });
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'stopped') return stopped();
      if (m.type === 'started') {
        if (!closing) state = 'running';
        return;
      }
      if (m.type !== 'metrics') return;
      restarts = 0; // reporting: it is alive and working
      for (const [name, help, labels, by] of m.counters) counter(name, help).inc(labels, by);
      for (const [name, help, labels, values] of m.observations) for (const v of values) histogram(name, help).observe(labels, v);
    });
    worker.on('error', (err) => log.error('delivery worker failed', { error: String(err?.stack ?? err) }));
    worker.on('exit', (code) => {
      if (closing) return stopped();
      state = 'restarting';
      // Nothing is lost (the outbox is the truth; the dead thread's leases went with it).
      const delay = Math.min(30_000, 1000 * 2 ** restarts++);
      log.error('delivery worker exited; restarting', { code, in_ms: delay });
      setTimeout(() => closing || spawn(), delay).unref();
    });
  };
  spawn();

  // Wake-ups cut latency only; coalesced to one message per turn of the event loop.
  let waking = false;
  const unsubscribe = outbox.onEnqueue(() => {
    if (waking) return;
    waking = true;
    setImmediate(() => {
      waking = false;
      if (!closing) worker.postMessage({ type: 'wake' } satisfies ToWorker);
    });
  });

  return {
    state: () => state,
    async close() {
      if (closing) return;
      closing = true;
      state = 'stopped';
      unsubscribe();
      // The worker finishes sends in flight (at most the send timeout) and records their results.
      const done = new Promise<void>((resolve) => (stopped = resolve));
      worker.postMessage({ type: 'stop' } satisfies ToWorker);
      const grace = (opts.timeoutMs ?? 10_000) + 5_000;
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([done.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), grace)))]);
      clearTimeout(timer);
      if (late) log.warn('delivery worker did not stop in time; terminating it (what it held is sent again by the next worker)', { grace_ms: grace });
      await worker.terminate();
    },
  };
}
