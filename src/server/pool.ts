/** The Piscina pool of detection workers. */
import { Piscina } from 'piscina';
import { DwellError } from '../errors.js';
import type { DetectResult, DetectTask } from './detect-task.js';

export class DetectPool {
  private readonly pool: Piscina;

  constructor(threads: number, private readonly maxQueue: number) {
    this.pool = new Piscina({
      filename: new URL('../../workers/detect.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
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

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
