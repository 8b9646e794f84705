/**
 * A small Prometheus registry: counters, gauges read on scrape, and histograms. Enough for
 * contract §6's /metrics without a dependency; label sets are few and fixed.
 */
type Labels = Record<string, string>;

const key = (labels: Labels) => Object.keys(labels).sort().map((k) => `${k}="${String(labels[k]).replace(/["\\\n]/g, '_')}"`).join(',');

class Counter {
  private readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

class Gauge {
  constructor(readonly name: string, readonly help: string, private readonly read: () => Array<[Labels, number]> | number) {}
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    const v = this.read();
    if (typeof v === 'number') lines.push(`${this.name} ${v}`);
    else for (const [labels, n] of v) lines.push(`${this.name}{${key(labels)}} ${n}`);
    return lines.join('\n');
  }
}

class Histogram {
  private readonly series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly buckets: number[]) {}
  observe(labels: Labels, value: number): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const pre = k ? k + ',' : '';
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${pre}le="${b}"} ${s.counts[i]}`));
      lines.push(`${this.name}_bucket{${pre}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ''} ${s.sum}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ''} ${s.count}`);
    }
    return lines.join('\n');
  }
}

export class Metrics {
  private readonly all: Array<Counter | Gauge | Histogram> = [];
  readonly requests = this.add(new Counter('dwell_http_requests_total', 'HTTP requests by route and status'));
  readonly latency = this.add(new Histogram('dwell_http_request_duration_seconds', 'HTTP request latency by route',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]));
  readonly detections = this.add(new Counter('dwell_detections_total', 'visits answered, by kind and outcome'));

  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }
  histogram(name: string, help: string, buckets: number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }
  gauge(name: string, help: string, read: () => Array<[Labels, number]> | number): Gauge {
    return this.add(new Gauge(name, help, read));
  }

  render(): string {
    return this.all.map((m) => m.render()).join('\n') + '\n';
  }

  private add<T extends Counter | Gauge | Histogram>(m: T): T {
    this.all.push(m);
    return m;
  }
}
