/**
 * The delivery worker's side of the metrics bridge (see service.ts): counts and observations are
 * gathered in the worker thread and posted to the main thread in one message every `everyMs`.
 */
import type { FromWorker } from './thread-messages.js';

export class WorkerMetrics {
  private counters = new Map<string, [string, string, Record<string, string>, number]>();
  private observations = new Map<string, [string, string, Record<string, string>, number[]]>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly post: (m: FromWorker) => void, everyMs = 500) {
    this.timer = setInterval(() => this.flush(), everyMs);
    this.timer.unref();
  }

  inc(name: string, help: string, labels: Record<string, string> = {}, by = 1): void {
    const k = name + JSON.stringify(labels);
    const c = this.counters.get(k);
    if (c) c[3] += by;
    else this.counters.set(k, [name, help, labels, by]);
  }

  /** Histograms in seconds, with SECONDS_BUCKETS. */
  observe(name: string, help: string, labels: Record<string, string>, seconds: number): void {
    const k = name + JSON.stringify(labels);
    const o = this.observations.get(k);
    if (o) o[3].push(seconds);
    else this.observations.set(k, [name, help, labels, [seconds]]);
  }

  flush(): void {
    if (this.counters.size === 0 && this.observations.size === 0) return;
    this.post({ type: 'metrics', counters: [...this.counters.values()], observations: [...this.observations.values()] });
    this.counters = new Map();
    this.observations = new Map();
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
