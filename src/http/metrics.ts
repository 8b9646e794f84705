/**
 * The service's Prometheus registry (contract §6's /metrics), on prom-client: its text format,
 * label escaping and the default process metrics (CPU, memory, heap, event-loop lag, GC).
 * The wrappers keep the small API callers had (`inc(labels, by)`, `observe(labels, v)`, gauges
 * read on scrape) and add two things prom-client leaves to its users: label names are learnt
 * from the first use when not given, and every label is bounded (metrics-labels.ts).
 */
import client from 'prom-client';
import { LabelGuard, type Labels } from './metrics-labels.js';

type Make<M> = (labelNames: string[]) => M;

/** A metric created on first use unless its label names are known up front. */
abstract class Bounded<M extends client.Counter | client.Histogram> {
  private metric?: M;
  private names: string[] = [];
  private readonly guard = new LabelGuard();

  constructor(private readonly make: Make<M>, labelNames?: string[]) {
    if (labelNames) this.create(labelNames);
  }

  protected labelled(labels: Labels): [M, Labels] {
    const metric = this.metric ?? this.create(Object.keys(labels));
    let use = this.guard.bound(labels);
    // A label this metric was not made with is a caller's slip: dropped, never thrown into a request.
    for (const k in use) {
      if (!this.names.includes(k)) {
        const { [k]: _dropped, ...rest } = use;
        use = rest;
      }
    }
    return [metric, use];
  }

  private create(labelNames: string[]): M {
    this.names = labelNames;
    return (this.metric = this.make(labelNames));
  }
}

export class Counter extends Bounded<client.Counter> {
  inc(labels: Labels = {}, by = 1): void {
    const [m, l] = this.labelled(labels);
    m.inc(l, by);
  }
}

export class Histogram extends Bounded<client.Histogram> {
  observe(labels: Labels, value: number): void {
    const [m, l] = this.labelled(labels);
    m.observe(l, value);
  }
}

export class Metrics {
  readonly registry = new client.Registry();
  private readonly made = new Map<string, Counter | Histogram>();
  readonly requests = this.counter('dwell_http_requests_total', 'HTTP requests by route and status', ['route', 'status']);
  readonly latency = this.histogram('dwell_http_request_duration_seconds', 'HTTP request latency by route',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], ['route']);
  readonly detections = this.counter('dwell_detections_total', 'visits answered, by kind and outcome', ['kind', 'outcome']);
  /** Contract §12: each flag of each visit and event answered, once. */
  readonly integrityFlags = this.counter('dwell_integrity_flags_total', 'integrity flags of the visits and events answered, by flag', ['flag']);
  readonly integrityDropped = this.counter('dwell_integrity_dropped_total', 'visits and events not delivered by postback or bucket because they did not pass the integrity checks (app setting integrity: drop)', []);

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  /** The same name twice answers the same counter (the delivery bridge asks by name). */
  counter(name: string, help: string, labelNames?: string[]): Counter {
    return this.once(name, () => new Counter((names) => new client.Counter({ name, help, labelNames: names, registers: [this.registry] }), labelNames));
  }

  histogram(name: string, help: string, buckets: number[], labelNames?: string[]): Histogram {
    return this.once(name, () => new Histogram((names) => new client.Histogram({ name, help, buckets, labelNames: names, registers: [this.registry] }), labelNames));
  }

  /** Read on every scrape; a list of [labels, value] for a gauge with `labelNames`. */
  gauge(name: string, help: string, read: () => Array<[Labels, number]> | number, labelNames: string[] = []): void {
    const guard = new LabelGuard();
    new client.Gauge({
      name, help, labelNames, registers: [this.registry],
      collect() {
        const v = read();
        if (typeof v === 'number') return void this.set(v);
        this.reset();
        for (const [labels, n] of v) this.set(guard.bound(labels), n);
      },
    });
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private once<T extends Counter | Histogram>(name: string, make: () => T): T {
    let m = this.made.get(name);
    if (!m) this.made.set(name, (m = make()));
    return m as T;
  }
}
