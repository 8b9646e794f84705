/** Small statistics for benchmark reports: latency recorders, percentiles, medians, spreads. */

/** Collects samples (e.g. latencies in ms) in a growable typed array. */
export class Samples {
  private data = new Float64Array(1024);
  private n = 0;

  add(v: number): void {
    if (this.n === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = v;
  }

  get count(): number {
    return this.n;
  }

  /** A sorted copy of the samples. */
  sorted(): Float64Array {
    return this.data.slice(0, this.n).sort();
  }

  summary(): Summary {
    return summarize(this.sorted());
  }

  /** The share of the samples above `x`; NaN when there are none. */
  shareOver(x: number): number {
    let over = 0;
    for (let i = 0; i < this.n; i++) if (this.data[i] > x) over++;
    return this.n ? over / this.n : NaN;
  }
}

export interface Summary { count: number; min: number; p50: number; p90: number; p99: number; p999: number; max: number; mean: number }

/** Nearest-rank percentile of an ascending array; NaN when empty. q in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((q / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(sorted: ArrayLike<number>): Summary {
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i];
  return {
    count: sorted.length,
    min: sorted.length ? sorted[0] : NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export interface Spread { median: number; min: number; max: number }

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Rounds' figures as the reports print them: "median (min–max)", `digits` after the point. */
export function medianRange(values: readonly number[], digits: number): string {
  const s = spread(values);
  return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
}
