/** The Piscina pool of detection workers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { clockBuffer } from '../time/clock.js';
import { newVersions } from '../learned/cache.js';
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import { samplePositions, type StoreHandle } from '../venues/store.js';
import { placeDbBuffer } from '../venues/place-db/share.js';
import type { BatchAnswer, DetectBatch, DetectTask } from '../pipeline/task.js';
import { Gatherer } from '../pipeline/gather.js';
import type { DetectResult } from '../schemas/detect-outcome.js';
import type { ExplainResult, ExplainTask } from '../pipeline/explain.js';
import { warmUpTasks } from './warm-up.js';
import { WarmUpSettle } from './warm-up-settle.js';
import { leastBusyInTurn, type Balancer } from './balancer.js';
import { fixHeapGrowth } from './heap-growth.js';
import { monotonicMs } from '../time/wall.js';

/** The worker's entry point, named for the dependency rule (Piscina starts it by URL below). */
export type * as DetectEntry from '../../workers/detect.js';

export type WorkersState = 'warming' | 'warm';

/** Each detection worker's young generation, MB (two semi-spaces; Node 20's default is 32): see the constructor. */
const YOUNG_GENERATION_MB = 64;

/**
 * How long the warm-up may start waves, ms (readiness waits at most 5 s more for the last). It
 * settles in 2–5 s at load 4–6; at load 11 the former 5 s cap ran out (ready after 6.6 s, the
 * first minute 27 % over 50 ms). Kept below the 20 s the tests' servers are given to be ready.
 */
const WARM_UP_CAP_MS = 15_000;

/**
 * The most requests in one batch (pipeline/gather.ts). A request's answer leaves with its batch's,
 * so a batch is the longest a request waits for its neighbours' detections (about 0.5 ms each).
 */
const MAX_BATCH = 8;
/**
 * Batches a worker may hold, the one it runs and the next (at most DWELL_WORKER_TASKS): a worker
 * never idles through a round trip, and what arrives meanwhile waits in the gatherer, where it
 * forms the next batches. With 12 a worker, as tasks had, every turn's few requests left at once
 * and batches stayed small: bench:pool-batches, 48 callers, load 7–11, 5 rounds: 12 a worker,
 * 1.91 requests a batch, 0.837 ms of CPU a request; 2 a worker, 7.91 a batch, 0.694; one task a
 * request, 0.971.
 */
const BATCHES_PER_WORKER = 2;

export class DetectPool {
  private readonly pool: Piscina;
  private readonly gatherer: Gatherer;
  private readonly balancer: Balancer;
  private warmed: Promise<void> | null = null;
  /** Set by close(): no further warm-up wave starts. */
  private closing = false;
  state: WorkersState = 'warming';
  /** The workers' shared table that keeps their caches of learned values exact (learned/cache.ts); the HTTP thread's feedback writes raise it too. */
  readonly versions = newVersions();

  /**
   * `tasksPerWorker` tasks are posted to a worker before it asks for more. With one, a worker
   * idles through every round trip (its answer wakes the HTTP thread, which then posts the next
   * task and wakes the worker); with several, it finds the next task waiting and each wake-up
   * carries several answers. bench:http peak, early in session 3: 1 → 1,444 req/s, 3 → 1,785,
   * 6 → 1,970, 12 → 2,098, 24 → 2,146. At a given part load the p99 hardly depends on it (the
   * bench:http section of docs/performance.md); a request can wait behind those already handed to its worker,
   * which is why this stops at 12.
   */
  /** `maxBatch` 0: one task a request, as before issue 44 (bench/pool-batches.ts compares the two in one run). */
  constructor(private readonly threads: number, private readonly tasksPerWorker: number, private readonly maxQueue: number, cacheMb?: number, private readonly warmUp: 'on' | 'off' = 'on', private readonly maxBatch = MAX_BATCH) {
    this.balancer = leastBusyInTurn(tasksPerWorker);
    fixHeapGrowth();
    this.pool = new Piscina({
      filename: new URL('../../workers/detect-entry.cjs', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: tasksPerWorker,
      // Least busy, ties in turn (balancer.ts): Piscina's own gave the first worker ~80 % at part load.
      loadBalancer: this.balancer.pick,
      // An idle worker waits in Atomics.wait (Piscina's 'sync'), so its event loop does not turn
      // between tasks; workers/detect.ts turns it a few times a second (pipeline/loop-turn.ts),
      // which fires the timers lmdb-js sets at each read-snapshot renewal (without a turn they piled
      // up, 44,000 a worker after 95 s at 300 req/s). 'async' (Atomics.waitAsync, the loop turning on
      // every wake-up) had fixed that too, but costs every request a loop turn: bench:http,
      // interleaved runs, server CPU ms a request at the peak, main thread 0.095–0.112 'async'
      // against 0.073–0.081 'sync', workers 0.40–0.45 against 0.36–0.38 (issue 21).
      atomics: 'sync',
      // A detection allocates some 200 KB that dies within it, ~40 MB/s a worker at 300 req/s, so with
      // Node's default young generation (32 MB, 16 MB semi-spaces) a worker scavenged 2–3 times a second and promoted what was
      // merely mid-request. bench:soak at 300 req/s, 2 min, per worker (load 12–15): default 310
      // scavenges, 3.0–3.3 s of pauses, peak heap 275 MB; 64 MB: 205, 1.7–2.1 s, 227 MB; 128 MB: 150,
      // 1.9 s, 300 MB (the semi-spaces' own cost). Issue 21.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      // The place database (venues/place-db/): one copy in this process, viewed by every worker.
      workerData: { userVersions: this.versions.buffer, placeDb: placeDbBuffer(), clock: clockBuffer() },
      // The caches' memory bound (cache-budget.ts) as configured, whether it came from a flag or the environment.
      env: { ...process.env, DWELL_WORKERS: String(threads), ...(cacheMb ? { DWELL_CACHE_MB: String(cacheMb) } : {}) },
    });
    const send = (batch: DetectBatch, transfer: ArrayBuffer[]) => this.pool.run(batch, { name: 'batch', transferList: transfer }) as Promise<BatchAnswer<DetectResult>>;
    this.gatherer = new Gatherer(send, threads, threads * Math.min(tasksPerWorker, BATCHES_PER_WORKER), Math.max(1, maxBatch));
  }

  /** Detections waiting for a worker: gathered for a batch that has no free slot yet, or a batch in Piscina's queue. */
  get queued(): number {
    return this.gatherer.queued + this.pool.queueSize;
  }

  /** Batches handed to the workers so far and the requests in them. */
  get batched(): { batches: number; requests: number } {
    return { ...this.gatherer.sent };
  }

  /** Detections each worker has answered so far (warm-up included), by worker: `w1`, `w2`… in start order. */
  handed(): Array<[{ worker: string }, number]> {
    return [...this.gatherer.answered].sort((a, b) => a[0] - b[0]).map(([, n], i) => [{ worker: `w${i + 1}` }, n]);
  }

  /** One detection, run in a batch with the others asked for in this turn of the loop (pipeline/gather.ts). */
  async run(task: DetectTask): Promise<DetectResult> {
    if (this.queued >= this.maxQueue) {
      throw new DwellError('unavailable', 'detection is saturated; retry shortly', undefined, 1);
    }
    if (this.maxBatch > 0) return this.gatherer.add(task);
    const body = task.body;
    // Moved when it owns its buffer outright (readBody makes sure it does); cloning copies it.
    const transfer = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : [];
    return this.pool.run(task, { transferList: transfer });
  }

  /** An operator's explanation (pipeline/explain.ts), by the workers' named export. */
  explain(task: ExplainTask): Promise<ExplainResult> {
    return this.pool.run(task, { name: 'explain' });
  }

  /**
   * Runs warm-up detections (server/warm-up.ts) on every worker against `store`; the pool is
   * `warm` once they are done (or failed: warming is an optimisation, never a reason not to
   * serve). Waves of `threads × tasksPerWorker` tasks keep every worker busy, since Piscina
   * hands each worker up to tasksPerWorker at once. The first wave waits for the workers'
   * modules and gazetteer to load; then waves run until the time a detection takes has stopped
   * falling (warm-up-settle.ts: measured, since the same count is too few on a loaded machine
   * and wasted on a quiet one), at most until `capMs` (a node that is not ready receives no
   * traffic, but one that never warms must still serve). Then a wave on the real data directory
   * opens its stores in every worker. The log line says what it did. Once per process: a later
   * store (hot swap) is opened by the workers on its first requests.
   *
   * With DWELL_WARM_UP=off the pool is `warm` at once and nothing runs; the workers load their
   * modules and open the stores on their first tasks. For the tests, which start ~100 servers:
   * start to ready to exit with 2 workers took 1.5 s of CPU instead of 2.9 (median of 5; the
   * warm-up's detections, ~260 then, and the optimising compiler's work on them).
   */
  warm(store: StoreHandle, dataDir: string, capMs = WARM_UP_CAP_MS): Promise<void> {
    if (this.warmUp === 'off') {
      if (this.state !== 'warm') log.info('detection workers not warmed up (DWELL_WARM_UP=off)', { workers: this.threads });
      this.state = 'warm';
      return Promise.resolve();
    }
    // A wave that hangs must not hold readiness for ever: ready anyway a little after the cap.
    const cap = setTimeout(() => {
      if (this.state === 'warm') return;
      this.state = 'warm';
      log.warn('detection workers still warming up after the cap; ready anyway', { cap_ms: capMs });
    }, capMs + 5_000);
    cap.unref();
    this.warmed ??= (async () => {
      const t0 = monotonicMs();
      const scratch = mkdtempSync(path.join(tmpdir(), 'dwell-warm-up-'));
      const settle = new WarmUpSettle(this.threads);
      let failed = 0, firstMs = NaN;
      try {
        const places = samplePositions(store, 1024);
        const wave = this.threads * this.tasksPerWorker;
        const runWave = async (batch: DetectTask[]) => {
          const w0 = monotonicMs();
          const out = await Promise.allSettled(batch.map((t) => this.gatherer.add(t)));
          for (const r of out) if (r.status !== 'fulfilled' || !r.value.ok) failed++;
          return Math.round(monotonicMs() - w0);
        };
        firstMs = await runWave(warmUpTasks(store, places, scratch, 0, wave, true));
        for (let k = wave; !settle.settled && monotonicMs() - t0 < capMs && !this.closing; k += wave) settle.add(wave, await runWave(warmUpTasks(store, places, scratch, k, wave, true)));
        if (!this.closing) await runWave(warmUpTasks(store, places, dataDir, 0, wave, false));
        if (failed) log.warn('some warm-up detections failed', { failed });
      } catch (err) {
        log.warn('worker warm-up failed; serving cold', { error: String((err as Error)?.message ?? err) });
      } finally {
        rmSync(scratch, { recursive: true, force: true });
        clearTimeout(cap);
        this.state = 'warm';
        const fields = { ms: Math.round(monotonicMs() - t0), workers: this.threads, first_wave_ms: firstMs, settled: settle.settled, cap_ms: capMs, ...settle.summary() };
        if (settle.settled) log.info('detection workers warm', fields);
        else log.warn('detection workers warm-up ended before settling (the cap, a shutdown or failures)', { ...fields, closing: this.closing, failed });
      }
    })();
    return this.warmed;
  }

  /**
   * Waits for the warm-up wave in progress (none starts after this), then stops the workers.
   * A SIGTERM can come while a node is still warming (the cap made it ready, or it never got
   * there): destroying the pool under those tasks, or closing the stores they read, left nodes
   * hanging in shutdown and once crashed LMDB natively.
   */
  async close(): Promise<void> {
    this.closing = true;
    await this.warmed?.catch(() => {});
    await this.pool.destroy();
  }
}
