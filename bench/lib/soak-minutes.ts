/**
 * A soak run cut into minutes: the client's latencies by the minute each request was scheduled
 * in, and at each minute's end the server's histogram, its memory and its GC pauses per thread.
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Samples, type Summary } from './stats.js';
import { between, fetchMetrics, routeHistogram, seriesByLabel, type HistogramReading } from './server-metrics.js';
import { procMemory, type ProcMemory } from './proc-memory.js';
import type { GcLedger } from './gc-trace.js';
import { threadCpuSeconds } from './thread-cpu.js';
import { fmtShare } from './table.js';

export interface ThreadGc { totalMs: number; maxMs: number; n: number; heapMb: number }

export interface Minute {
  minute: number;
  sent: number;
  ok: number;
  errors: number;
  client: Summary;
  /** The server's own histogram over the minute (null: no /metrics, e.g. the floor). */
  server: { count: number; over: number; share: number; meanMs: number } | null;
  /**
   * Shares of the minute's requests over TAIL_MS (a bucket of Dwell's histogram) by the server's
   * histogram (NaN without one) and by the client: where the client's tail is made, inside the
   * server's handling of a request (from its headers read to its answer written) or outside it.
   */
  tail: { server: number; client: number };
  /**
   * The load generator's own event-loop delay over the minute, ms past the 1 ms sampling: a
   * request answered while the generator's thread waited for a core is counted late by the client,
   * though no server made it so (the generator shares the machine's cores with the server).
   */
  generator: { p99Ms: number; maxMs: number };
  memory: ProcMemory | null;
  /** GC pauses by thread (t0: the main thread). */
  gc: Record<string, ThreadGc>;
  load1: number;
  /** Server CPU ms per answered request over the minute: the main thread, and all other threads. */
  cpu: { mainMs: number; otherMs: number } | null;
  /** Detection tasks each worker took over the minute (Dwell's dwell_detect_worker_tasks), by worker name. */
  workers?: Record<string, number>;
  /** The first minute only: the server histogram's share over the bound in each 10 s slice (where in the minute a cold start costs). */
  slices?: Array<{ s: number; count: number; share: number; meanMs: number; cpu?: { mainMs: number; otherMs: number } }>;
}

const WORKER_TASKS = 'dwell_detect_worker_tasks';
/** The tail's bound: near the client p99 at part load, and a bucket of Dwell's latency histogram (http/metrics.ts). */
export const TAIL_MS = 5;
const LOOP_RESOLUTION_MS = 1;

export interface MinuteRecorderOptions {
  pid: number;
  /** Dwell's base URL when its /metrics is to be read. */
  metricsUrl?: string;
  /** Bearer token of /metrics on the public port (Dwell's admin token). */
  metricsToken?: string;
  route: string;
  boundS: number;
  gc?: GcLedger;
  say: (line: string) => void;
  label: string;
}

export class MinuteRecorder {
  private readonly samples: Samples[] = [];
  private readonly counts: Array<{ sent: number; ok: number; errors: number }> = [];
  readonly minutes: Minute[] = [];
  private last: HistogramReading | null = null;
  private lastWorkers = new Map<string, number>();
  private startPerf = 0;
  private startWall = 0;
  private cpuAt = new Map<number, number>();
  private sliceLast: HistogramReading | null = null;
  private sliceCpu = new Map<number, number>();
  private readonly slices: NonNullable<Minute['slices']> = [];
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

  constructor(private readonly o: MinuteRecorderOptions) {}

  /** The server histogram's reading before the load, so minute 1 counts only its own requests. */
  async begin(startPerf: number): Promise<void> {
    this.startPerf = startPerf;
    this.startWall = Date.now() - (performance.now() - startPerf);
    this.last = (await this.readServer()).hist;
    this.sliceLast = this.last;
    this.sliceCpu = threadCpuSeconds(this.o.pid);
    this.cpuAt = threadCpuSeconds(this.o.pid);
    this.loopDelay.reset();
    this.loopDelay.enable();
  }

  /** The generator's loop delay since the last call, ms past the sampling interval. */
  private generatorDelay(): Minute['generator'] {
    const past = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    const out = { p99Ms: past(this.loopDelay.percentile(99)), maxMs: past(this.loopDelay.max) };
    this.loopDelay.reset();
    return out;
  }

  /** CPU seconds since the last call: the main thread's, the others'. */
  private cpuSince(): { main: number; other: number } {
    const now = threadCpuSeconds(this.o.pid);
    let main = 0, other = 0;
    for (const [tid, s] of now) {
      const d = s - (this.cpuAt.get(tid) ?? 0);
      if (tid === this.o.pid) main += d; else other += d;
    }
    this.cpuAt = now;
    return { main, other };
  }

  private slot(m: number): { s: Samples; c: { sent: number; ok: number; errors: number } } {
    while (this.samples.length <= m) { this.samples.push(new Samples()); this.counts.push({ sent: 0, ok: 0, errors: 0 }); }
    return { s: this.samples[m], c: this.counts[m] };
  }

  observe = (scheduled: number, answered: number, status: number): void => {
    const { s, c } = this.slot(Math.max(0, Math.floor((scheduled - this.startPerf) / 60_000)));
    s.add(answered - scheduled);
    c.sent++;
    if (status >= 200 && status < 300) c.ok++;
    else c.errors++;
  };

  /** The minute's partial client figures, for progress lines. */
  partial(m: number): Summary {
    return this.slot(m).s.summary();
  }

  /** The route's histogram and the tasks per worker so far (a delta from the last reading is kept for the minute). */
  private async readServer(): Promise<{ hist: HistogramReading | null; workers?: Record<string, number> }> {
    if (!this.o.metricsUrl) return { hist: null };
    try {
      const text = await fetchMetrics(this.o.metricsUrl, this.o.metricsToken);
      const now = seriesByLabel(text, WORKER_TASKS, 'worker');
      const workers = now.size ? Object.fromEntries([...now].map(([w, n]) => [w, n - (this.lastWorkers.get(w) ?? 0)])) : undefined;
      this.lastWorkers = now;
      return { hist: routeHistogram(text, this.o.route), workers };
    } catch (err) {
      this.o.say(`[${this.o.label}] /metrics unreadable: ${(err as Error).message}`);
      return { hist: null };
    }
  }

  /** A slice of the first minute ends `s` seconds in: the server histogram since the previous slice. */
  async slice(s: number): Promise<void> {
    if (!this.o.metricsUrl) return;
    const reading = routeHistogram(await fetchMetrics(this.o.metricsUrl, this.o.metricsToken).catch(() => ''), this.o.route);
    const d = between(this.sliceLast, reading, this.o.boundS);
    if (reading) this.sliceLast = reading;
    const cpuNow = threadCpuSeconds(this.o.pid);
    let main = 0, other = 0;
    for (const [tid, c] of cpuNow) { const x = c - (this.sliceCpu.get(tid) ?? 0); if (tid === this.o.pid) main += x; else other += x; }
    this.sliceCpu = cpuNow;
    if (!d) return;
    const cpu = d.count ? { mainMs: (main * 1000) / d.count, otherMs: (other * 1000) / d.count } : undefined;
    this.slices.push({ s, count: d.count, share: d.share, meanMs: d.meanMs, cpu });
    this.o.say(`[${this.o.label}] first minute to ${s} s: ${(d.share * 100).toFixed(2)} % over ${this.o.boundS * 1000} ms of ${d.count} (mean ${d.meanMs.toFixed(1)} ms; CPU ms/req ${cpu ? `${cpu.mainMs.toFixed(2)} main + ${cpu.otherMs.toFixed(2)} others` : '–'})`);
  }

  /** Closes minute `m` (0-based): called at its end; its client figures are final once its requests are answered (`finish`). */
  async close(m: number): Promise<Minute> {
    const used = this.cpuSince();
    const { hist: reading, workers } = await this.readServer();
    const server = this.o.metricsUrl ? between(this.last, reading, this.o.boundS) : null;
    const serverTail = this.o.metricsUrl ? between(this.last, reading, TAIL_MS / 1000).share : NaN;
    if (reading) this.last = reading;
    const from = this.startWall + m * 60_000;
    const gc: Record<string, ThreadGc> = {};
    for (const [t, v] of this.o.gc?.slot(from, from + 60_000) ?? []) gc[t] = v;
    const { s, c } = this.slot(m);
    const served = server?.count ?? c.ok;
    const cpu = served > 0 ? { mainMs: (used.main * 1000) / served, otherMs: (used.other * 1000) / served } : null;
    const minute: Minute = { minute: m + 1, ...c, client: s.summary(), server, tail: { server: serverTail, client: s.shareOver(TAIL_MS) }, generator: this.generatorDelay(), memory: procMemory(this.o.pid), gc, load1: loadavg()[0], cpu, workers, ...(m === 0 && this.slices.length ? { slices: [...this.slices] } : {}) };
    this.minutes[m] = minute;
    this.o.say(`[${this.o.label}] ${describeMinute(minute)}`);
    return minute;
  }

  /** Client figures once every request is answered (a minute's stragglers land after it was closed); GC re-read (its lines lag). */
  finish(): Minute[] {
    this.loopDelay.disable();
    for (const m of this.minutes) {
      const { s, c } = this.slot(m.minute - 1);
      Object.assign(m, c, { client: s.summary(), tail: { ...m.tail, client: s.shareOver(TAIL_MS) } });
      const from = this.startWall + (m.minute - 1) * 60_000;
      m.gc = Object.fromEntries(this.o.gc?.slot(from, from + 60_000) ?? []);
    }
    return this.minutes;
  }
}

export function gcSplit(gc: Record<string, ThreadGc>): { main: ThreadGc; others: ThreadGc; busiest: string } {
  const main = gc.t0 ?? { totalMs: 0, maxMs: 0, n: 0, heapMb: NaN };
  const others = { totalMs: 0, maxMs: 0, n: 0, heapMb: 0 };
  let busiest = '';
  let top = -1;
  for (const [t, v] of Object.entries(gc)) {
    if (t === 't0') continue;
    others.totalMs += v.totalMs;
    others.maxMs = Math.max(others.maxMs, v.maxMs);
    others.n += v.n;
    others.heapMb += v.heapMb;
    if (v.totalMs > top) { top = v.totalMs; busiest = `${t} ${v.totalMs.toFixed(0)} ms`; }
  }
  return { main, others, busiest };
}

export function describeMinute(m: Minute): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 1 : 0) : '–');
  const srv = m.server ? `, server >50 ms ${(m.server.share * 100).toFixed(2)} % of ${m.server.count} (mean ${f(m.server.meanMs)} ms)` : '';
  const tail = `; over ${TAIL_MS} ms: client ${fmtShare(m.tail.client)}${m.server ? `, server ${fmtShare(m.tail.server)}` : ''}; generator loop delay p99 ${f(m.generator.p99Ms)} ms, max ${f(m.generator.maxMs)} ms`;
  const mem = m.memory ? `, anon ${m.memory.anonMb.toFixed(0)} MB, file ${m.memory.fileMb.toFixed(0)} MB` : '';
  const g = gcSplit(m.gc);
  const per = Object.entries(m.gc).filter(([t]) => t !== 't0').map(([t, v]) => `${t} ${f(v.totalMs)} (${v.n}×, max ${f(v.maxMs)}, heap ${f(v.heapMb)} MB)`).join(', ');
  const tasks = m.workers ? `; tasks per worker ${Object.entries(m.workers).map(([w, n]) => `${w} ${n}`).join(', ')}` : '';
  return `minute ${m.minute}: ${m.ok} ok, ${m.errors} errors; client p50 ${f(m.client.p50)} ms, p99 ${f(m.client.p99)} ms, max ${f(m.client.max)} ms${srv}${tail}${mem}; ` +
    `GC main ${f(g.main.totalMs)} ms (max ${f(g.main.maxMs)}), other threads ${f(g.others.totalMs)} ms (max ${f(g.others.maxMs)}): ${per}${tasks}; ` +
    `CPU ms/req ${m.cpu ? `${m.cpu.mainMs.toFixed(2)} main + ${m.cpu.otherMs.toFixed(2)} others` : '–'}; load ${m.load1.toFixed(1)}`;
}
