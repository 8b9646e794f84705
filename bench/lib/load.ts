/**
 * Load drivers for HTTP benchmarks, generic over a `send()` that performs one request and
 * answers its HTTP status (0 for a transport error or timeout). Every loop is bounded in time.
 *
 * - closedLoop: N callers, each sending its next request when the previous one is answered;
 *   measures the peak rate. Latency is from send to answer.
 * - openLoop: requests scheduled at a fixed rate whatever the server does; latency is measured
 *   from each request's *scheduled* time, so a server that falls behind shows its queueing
 *   instead of hiding it (no coordinated omission).
 */
import { performance } from 'node:perf_hooks';
import { Samples, type Summary } from './stats.js';

export type Send = () => Promise<number>;

export interface LoadResult {
  kind: 'closed' | 'open';
  /** Wall time of the phase, seconds (from the first send to the last answer counted). */
  seconds: number;
  sent: number;
  /** 2xx answers. */
  ok: number;
  /** Everything else: non-2xx answers, transport errors, requests unanswered at the deadline, requests the client could not send. */
  errors: number;
  /** Error counts by status (0: transport error; 'unanswered'; 'not_sent'). */
  errorsBy: Record<string, number>;
  /** 2xx answers a second. */
  rps: number;
  /** All answered requests (2xx or not), ms. */
  latency: Summary;
  /** For open loops: the rate asked for. */
  targetRps?: number;
}

function tally(errorsBy: Record<string, number>, key: string | number, n = 1): void {
  errorsBy[key] = (errorsBy[key] ?? 0) + n;
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface ClosedLoopOptions {
  concurrency: number;
  durationMs: number;
  send: Send;
  /** How long to wait for the last requests after the phase ends before counting them as errors. */
  drainMs?: number;
}

export async function closedLoop(opts: ClosedLoopOptions): Promise<LoadResult> {
  const latencies = new Samples();
  const errorsBy: Record<string, number> = {};
  let sent = 0;
  let ok = 0;
  let inFlight = 0;
  let lastAnswer = 0;
  const start = performance.now();
  const end = start + opts.durationMs;

  const caller = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      sent++;
      inFlight++;
      let status = 0;
      try {
        status = await opts.send();
      } catch {
        status = 0;
      }
      inFlight--;
      const t1 = performance.now();
      lastAnswer = t1;
      latencies.add(t1 - t0);
      if (status >= 200 && status < 300) ok++;
      else tally(errorsBy, status);
    }
  };
  const all = Promise.all(Array.from({ length: opts.concurrency }, caller));
  const drained = await Promise.race([all.then(() => true), wait(opts.durationMs + (opts.drainMs ?? 15_000)).then(() => false)]);
  if (!drained) tally(errorsBy, 'unanswered', inFlight);
  const seconds = (Math.max(lastAnswer, end) - start) / 1000;
  const errors = Object.values(errorsBy).reduce((a, b) => a + b, 0);
  return { kind: 'closed', seconds, sent, ok, errors, errorsBy, rps: ok / seconds, latency: latencies.summary() };
}

export interface OpenLoopOptions {
  rate: number;
  durationMs: number;
  send: Send;
  /** Requests the client keeps outstanding at most; beyond it a scheduled request is not sent and counts as an error. */
  maxInFlight?: number;
  drainMs?: number;
  /** Scheduler tick, ms. */
  tickMs?: number;
  /** Sees each answer: when it was scheduled and answered (performance.now() ms) and its status. */
  observe?: (scheduledMs: number, answeredMs: number, status: number) => void;
}

export async function openLoop(opts: OpenLoopOptions): Promise<LoadResult> {
  const latencies = new Samples();
  const errorsBy: Record<string, number> = {};
  const interval = 1000 / opts.rate;
  const total = Math.max(1, Math.floor((opts.rate * opts.durationMs) / 1000));
  const maxInFlight = opts.maxInFlight ?? 10_000;
  let sent = 0;
  let ok = 0;
  let inFlight = 0;
  let lastAnswer = 0;
  let next = 0;
  const start = performance.now() + 2;
  let allAnswered: () => void = () => {};
  const answered = new Promise<void>((r) => (allAnswered = r));

  const fire = (scheduled: number) => {
    sent++;
    inFlight++;
    const settle = (status: number) => {
      inFlight--;
      const t1 = performance.now();
      lastAnswer = t1;
      latencies.add(t1 - scheduled);
      opts.observe?.(scheduled, t1, status);
      if (status >= 200 && status < 300) ok++;
      else tally(errorsBy, status);
      if (next >= total && inFlight === 0) allAnswered();
    };
    opts.send().then(settle, () => settle(0));
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        const scheduled = start + next * interval;
        next++;
        if (inFlight >= maxInFlight) tally(errorsBy, 'not_sent');
        else fire(scheduled);
      }
      if (next < total) setTimeout(tick, Math.max(0, Math.min(opts.tickMs ?? 1, start + next * interval - performance.now())));
      else resolve();
    };
    tick();
  });
  if (inFlight === 0) allAnswered();
  const drained = await Promise.race([answered.then(() => true), wait(opts.drainMs ?? 15_000).then(() => false)]);
  if (!drained) tally(errorsBy, 'unanswered', inFlight);
  const seconds = (Math.max(lastAnswer, start + opts.durationMs) - start) / 1000;
  const errors = Object.values(errorsBy).reduce((a, b) => a + b, 0);
  return { kind: 'open', seconds, sent, ok, errors, errorsBy, rps: ok / seconds, latency: latencies.summary(), targetRps: opts.rate };
}
