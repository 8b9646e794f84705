/** The Piscina pool of detection workers. */
import { Piscina } from 'piscina';
import { newVersions } from '../learned/cache.js';
import { DwellError } from '../errors.js';
import type { DetectTask } from '../pipeline/task.js';
import type { DetectResult } from '../schemas/detect-outcome.js';
import type { ExplainResult, ExplainTask } from '../pipeline/explain.js';

export class DetectPool {
  private readonly pool: Piscina;

  /**
   * `tasksPerWorker` tasks are posted to a worker before it asks for more. With one, a worker
   * idles through every round trip (its answer wakes the HTTP thread, which then posts the next
   * task and wakes the worker); with several, it finds the next task waiting and each wake-up
   * carries several answers. bench:http peak, early in session 3: 1 → 1,444 req/s, 3 → 1,785,
   * 6 → 1,970, 12 → 2,098, 24 → 2,146. At a given part load the p99 hardly depends on it (the
   * README's bench:http section); a request can wait behind those already handed to its worker,
   * which is why this stops at 12.
   */
  constructor(threads: number, tasksPerWorker: number, private readonly maxQueue: number) {
    this.pool = new Piscina({
      filename: new URL('../../workers/detect.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: tasksPerWorker,
      // The workers' shared table that keeps their caches of learned values exact (learned/cache.ts).
      workerData: { userVersions: newVersions().buffer },
    });
  }

  get queued(): number {
    return this.pool.queueSize;
  }

  async run(task: DetectTask): Promise<DetectResult> {
    if (this.pool.queueSize >= this.maxQueue) {
      throw new DwellError('unavailable', 'detection is saturated; retry shortly', undefined, 1);
    }
    const body = task.body;
    // Move the body when it owns its buffer outright (readBody makes sure it does); cloning copies the whole buffer.
    const transfer = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer] : [];
    return this.pool.run(task, { transferList: transfer as ArrayBuffer[] });
  }

  /** An operator's explanation (pipeline/explain.ts), by the workers' named export. */
  explain(task: ExplainTask): Promise<ExplainResult> {
    return this.pool.run(task, { name: 'explain' });
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
