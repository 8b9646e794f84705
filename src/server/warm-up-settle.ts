/**
 * When the workers' warm-up has done its work (issue 21): the per-detection time of its waves
 * has stopped falling. A fixed count or time was wrong both ways: on a quiet machine V8 has
 * optimised the detection path within a few hundred detections a worker, on a loaded one a 5 s
 * cap ran out before it had, and the first minute under load then had 27 % of detections over
 * 50 ms. Each wave keeps every worker busy, so a wave's wall time × workers ÷ detections is the
 * time one detection takes a worker.
 */

export interface WaveTime { detections: number; ms: number; perDetectionMs: number }

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export class WarmUpSettle {
  readonly waves: WaveTime[] = [];

  /**
   * `window` waves are compared with the `window` before them; settled once their median is no
   * more than `gain` lower (still improving by less than that) and each worker ran `minPerWorker`.
   * The wave times flatten within about 110 detections a worker, yet V8 is still optimising for
   * shapes it meets later (issue 44): in one thread, the first 1,000 New York requests after
   * 120, 300 and 600 warm-up detections cost 139, 122 and 114 optimisations (37, 37, 32 deopts).
   */
  constructor(private readonly workers: number, private readonly minPerWorker = 300, private readonly window = 3, private readonly gain = 0.1) {}

  add(detections: number, ms: number): void {
    this.waves.push({ detections, ms, perDetectionMs: (ms * this.workers) / Math.max(1, detections) });
  }

  get detections(): number {
    return this.waves.reduce((n, w) => n + w.detections, 0);
  }

  get settled(): boolean {
    const w = this.window, n = this.waves.length;
    if (n < 2 * w || this.detections < this.minPerWorker * this.workers) return false;
    const per = this.waves.map((x) => x.perDetectionMs);
    return median(per.slice(n - w)) >= (1 - this.gain) * median(per.slice(n - 2 * w, n - w));
  }

  /** For the log line: per-detection ms of the first wave, the best, the median of the last window. */
  summary(): { waves: number; detections: number; first_ms: number; best_ms: number; last_ms: number } {
    const per = this.waves.map((x) => x.perDetectionMs);
    const r = (x: number) => Math.round(x * 100) / 100;
    return { waves: per.length, detections: this.detections, first_ms: r(per[0] ?? NaN), best_ms: r(Math.min(...per)), last_ms: r(median(per.slice(-this.window))) };
  }
}
