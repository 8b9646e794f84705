/**
 * The retention sweep on a thread of its own (workers/sweep.ts), for the embedded store.
 *
 * Why: on the HTTP thread a batch that the operating system deschedules halfway (bench:privacy
 * on a loaded two-core machine: 2.6 % of batches over 2 ms, up to 60 ms) held the thread while
 * requests arrived. On its own thread a stretched batch delays nobody's HTTP; it still keeps to
 * the moments no request is in flight (sweep-pace.ts), which it learns from a counter the HTTP
 * thread keeps in shared memory (`enter`/`leave`), so it takes neither a worker's core nor the
 * users environment's write lock while detection needs them.
 *
 * The thread opens the same LMDB environments (lmdb-js shares one environment per process
 * between threads) and reports what each tick removed; the metric and the totals live here.
 */
import { Worker } from 'node:worker_threads';
import { log } from '../log.js';
import { clockBuffer } from '../time/clock.js';
import type { Metrics } from '../http/metrics.js';
import type { SweepCounts } from './retention.js';

const WORKER_URL = new URL('../../workers/sweep.js', import.meta.url);

import type { FromSweep, SweepThreadInit, ToSweep } from './sweep-messages.js';

export type { FromSweep, SweepThreadInit, ToSweep } from './sweep-messages.js';
/** The thread's entry point, named as a type so the dependency rule follows it (it is loaded by URL below). */
export type * as SweepEntry from '../../workers/sweep.js';

export interface SweepThread {
  /** A request starts and ends (the HTTP thread, around every request). */
  enter(): void;
  leave(): void;
  readonly removed: SweepCounts;
  /** Ends the thread after the batch in progress (its transaction commits whole). */
  stop(): Promise<void>;
}

/** How long stop() waits for the batch in progress before terminating the thread, ms. */
const STOP_GRACE_MS = 10_000;

export function startSweepThread(init: Omit<SweepThreadInit, 'inflight'>, metrics?: Metrics): SweepThread {
  const shared = new SharedArrayBuffer(4);
  const inflight = new Int32Array(shared);
  const removed: SweepCounts = { users: 0, geofence_presence: 0, dead_triggers: 0 };
  const counter = metrics?.counter('dwell_retention_removed_total', 'records deleted by the retention sweeps, by kind');
  const worker = new Worker(WORKER_URL, { workerData: { clock: clockBuffer(), ...init, inflight: shared } satisfies SweepThreadInit, name: 'dwell-sweep' });
  // Like the detection pool's threads, it must not keep a stopping process alive on its own.
  worker.unref();
  let stopped: () => void = () => {};
  const done = new Promise<void>((resolve) => (stopped = resolve));
  worker.on('message', (m: FromSweep) => {
    if (m.type === 'stopped') return stopped();
    if (m.type !== 'removed') return;
    for (const [kind, n] of Object.entries(m.counts)) {
      if (n > 0) { counter?.inc({ kind }, n); removed[kind as keyof SweepCounts] += n; }
    }
  });
  worker.on('error', (err) => log.error('retention sweep thread failed', { error: String(err?.stack ?? err) }));
  // Not restarted: the sweep is not urgent, and the next start resumes from the time index.
  let closing: Promise<void> | null = null;
  // (terminate() after a stop exits with 1 too: only an exit nobody asked for is an error.)
  worker.on('exit', (code) => { if (code !== 0 && !closing) log.error('retention sweep thread exited', { code }); stopped(); });
  return {
    enter: () => void Atomics.add(inflight, 0, 1),
    leave: () => void Atomics.sub(inflight, 0, 1),
    removed,
    stop() {
      closing ??= (async () => {
        worker.postMessage({ type: 'stop' } satisfies ToSweep);
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([done.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), STOP_GRACE_MS)))]);
        clearTimeout(timer);
        if (late) log.warn('retention sweep thread did not stop in time; terminating it', { grace_ms: STOP_GRACE_MS });
        await worker.terminate();
      })();
      return closing;
    },
  };
}
