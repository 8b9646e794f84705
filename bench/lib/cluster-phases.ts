/**
 * bench:cluster's phases on one setup (embedded, or N nodes on one nats-server): the NATS writes
 * of new and of returning users, a warm-up, closed-loop peaks and open-loop phases at a share of
 * the median peak, each measured on the client (LoadResult), in the processes (CPU of every
 * node, of its event-loop thread, of the nats-server) and in the nats-server's own counters.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { cpuMeter } from './cpu.js';
import { threadMeter } from './thread-cpu.js';
import { closedLoop, openLoop, type LoadResult, type Send } from './load.js';
import { alternate, makeSender, newPool, postDetect, type ErrorSamples, type Target } from './detect-sender.js';
import { natsMeter, type MonitoredServer, type NatsTraffic } from './nats-monitor.js';
import { structuredRequest } from './detect-requests.js';
import { prepareBody, type BodyPool } from './signing.js';
import { median, Samples } from './stats.js';
import { fmtInt, fmtMs } from './table.js';
import type { DwellNode } from '../../src/devkit/dwell-node.js';
import { WINDOW_MS } from '../../src/state/nats/learned-flush.js';

export interface Rig {
  name: string;
  nodes: DwellNode[];
  target: Target;
  /** The setup's nats-servers, absent for the embedded setup. */
  nats?: MonitoredServer[];
}

export interface Phase {
  result: LoadResult;
  /** Cores' worth used over the phase: all nodes together, their event-loop threads, the nats-server, the client, the rest of the machine. */
  nodeCores: number;
  mainCpuS: number;
  natsCores: number;
  clientCores: number;
  otherCores: number;
  nats?: NatsTraffic;
  /** Wall seconds the meters ran (the requests and any settle). */
  wallS: number;
}

/** A sample of requests sent `SAMPLE_WIDTH` at a time: what each costs the node and NATS. */
export type SampleRun = Phase;

const SAMPLE_WIDTH = 16;
/**
 * The samples' pace, the same for every setup: a node hands on and the writer writes what was
 * learned once a window, so how many requests share a write depends on the rate; at one rate,
 * the setups differ only by their node count. Low enough for four nodes on two cores.
 */
export const SAMPLE_RATE = 30;
/** Seconds of the idle measurement before the samples. */
const IDLE_S = 5;
/**
 * A sample's meters stop four and a half windows after its last answer: its learned sums (handed
 * on in a node's window, written in the writer's, every third, state/nats/learned-fleet.ts) are counted.
 */
export const SAMPLE_SETTLE_MS = WINDOW_MS * 4.5;

export interface SetupRun {
  name: string;
  nodes: number;
  peaks: Phase[];
  opens: Phase[];
  /** The setup doing nothing for IDLE_S: what its nodes cost NATS a second whatever the requests (lease checks, polls, heartbeats). */
  idle?: Phase;
  /** The first request of new users, and the same users' next request (visits new to the app). */
  newUsers?: SampleRun;
  returning?: SampleRun;
  errors: ErrorSamples;
}

export interface PhaseOptions {
  seconds: number;
  rounds: number;
  warmup: number;
  concurrency: number;
  usersSample: number;
  seed: number;
  openFraction?: number;
  log: (line: string) => void;
}

/**
 * `settleMs`: the meters run on that long after the last answer, so what the requests left to do
 * (a node writes what it learned once a window, state/nats/learned-flush.ts) is counted; cores
 * are then given over the requests' own seconds, so CPU ms per request holds all of it.
 */
async function measure(rig: Rig, run: () => Promise<LoadResult>, settleMs = 0): Promise<Phase> {
  const pids = Object.fromEntries(rig.nodes.map((n) => [n.name, n.proc.pid!]));
  const natsNames = (rig.nats ?? []).map((s, i) => [`nats-server-${i}`, s.pid] as const);
  for (const [name, pid] of natsNames) if (pid) pids[name] = pid;
  const cpu = cpuMeter(pids);
  const threads = rig.nodes.map((n) => threadMeter(n.proc.pid!));
  const nats = rig.nats ? await natsMeter(rig.nats) : null;
  const t0 = performance.now();
  const result = await run();
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  const stretch = settleMs > 0 ? (performance.now() - t0) / 1000 / result.seconds : 1;
  const traffic = await nats?.end();
  const c = cpu.end();
  const nodeCores = rig.nodes.reduce((a, n) => a + c.processes[n.name], 0) * stretch;
  return {
    result, nodeCores, mainCpuS: threads.reduce((a, t) => a + t.end(0).main, 0),
    natsCores: natsNames.reduce((a, [name]) => a + (c.processes[name] ?? 0), 0) * stretch, clientCores: c.self * stretch, otherCores: c.others * stretch, nats: traffic,
    wallS: (performance.now() - t0) / 1000,
  };
}

const perReq = (cores: number, rps: number) => (rps > 0 ? (cores * 1000) / rps : NaN);

function describe(p: Phase): string {
  const r = p.result;
  const n = Math.max(1, r.ok + r.errors);
  return `${fmtInt(r.rps)} req/s` + (r.targetRps ? ` (asked ${fmtInt(r.targetRps)})` : '') +
    `, p50 ${fmtMs(r.latency.p50)} ms, p99 ${fmtMs(r.latency.p99)} ms, max ${fmtMs(r.latency.max)} ms, errors ${r.errors}` +
    (r.errors ? ' ' + JSON.stringify(r.errorsBy) : '') +
    `; CPU ms/req: nodes ${fmtMs(perReq(p.nodeCores, r.rps))}, nats ${fmtMs(perReq(p.natsCores, r.rps))}; ` +
    `cores: client ${p.clientCores.toFixed(2)}, others ${p.otherCores.toFixed(2)} of ${availableParallelism()}` +
    (p.nats ? `; NATS per req: ${(p.nats.inMsgs / n).toFixed(1)} msgs / ${fmtInt(p.nats.inBytes / n)} B in, ${(p.nats.outMsgs / n).toFixed(1)} msgs / ${fmtInt(p.nats.outBytes / n)} B out` : '');
}

/** Sends every request of `sends`, `width` at a time and at most `rate` a second: a LoadResult like the loops' own. */
async function sendAll(sends: Send[], width: number, rate = Infinity): Promise<LoadResult> {
  const latencies = new Samples();
  const errorsBy: Record<string, number> = {};
  let next = 0;
  let ok = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < sends.length) {
      const k = next++;
      const due = start + (k * 1000) / rate;
      if (performance.now() < due) await new Promise((r) => setTimeout(r, due - performance.now()));
      const t = performance.now();
      const s = await sends[k]();
      latencies.add(performance.now() - t);
      if (s >= 200 && s < 300) ok++;
      else errorsBy[s] = (errorsBy[s] ?? 0) + 1;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  return { kind: 'closed', seconds, sent: sends.length, ok, errors: sends.length - ok, errorsBy, rps: ok / seconds, latency: latencies.summary() };
}

/**
 * New users' first requests, then the same users' next requests (a later day): visits the app
 * has not seen, unlike the mix's after its first pass. Users from 1,000,000 up, none of the
 * mix's 500, on a fresh app, alternated over the nodes.
 */
async function usersSample(rig: Rig, pools: Pool[], o: PhaseOptions, errors: ErrorSamples): Promise<{ idle: Phase; newUsers: SampleRun; returning: SampleRun }> {
  const idle = await measure(rig, async () => {
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    return { kind: 'closed', seconds: IDLE_S, sent: 0, ok: 0, errors: 0, errorsBy: {}, rps: 0, latency: new Samples().summary() };
  });
  o.log(`[${rig.name}] idle ${IDLE_S} s: NATS ${idle.nats ? `${(idle.nats.outMsgs / idle.wallS).toFixed(1)} msgs / ${fmtInt(idle.nats.outBytes / idle.wallS)} B out a second` : '–'}`);
  const users = 2_000_000;
  const pass = (base: number): Promise<SampleRun> => {
    const sends = Array.from({ length: o.usersSample }, (_, k) => {
      const body = prepareBody(structuredRequest(o.seed, base + k, { users }));
      const pool = pools[k % pools.length];
      return () => postDetect(pool, rig.target, body, errors);
    });
    return measure(rig, () => sendAll(sends, SAMPLE_WIDTH, SAMPLE_RATE), SAMPLE_SETTLE_MS);
  };
  const newUsers = await pass(1_000_000);
  o.log(`[${rig.name}] new users: ${describe(newUsers)}`);
  const returning = await pass(3_000_000);
  o.log(`[${rig.name}] returning users: ${describe(returning)}`);
  return { idle, newUsers, returning };
}

export async function runSetup(rig: Rig, bodies: BodyPool, o: PhaseOptions): Promise<SetupRun> {
  const tag = `[${rig.name}]`;
  const errors: ErrorSamples = new Map();
  const per = Math.max(1, Math.round(o.concurrency / rig.nodes.length));
  let pools = rig.nodes.map((n) => newPool(n.url, per));
  const run: SetupRun = { name: rig.name, nodes: rig.nodes.length, peaks: [], opens: [], errors };
  try {
    if (o.usersSample > 0) {
      o.log(`${tag} ${o.usersSample} requests of new users, then of the same users returning, ${SAMPLE_RATE} a second, ${SAMPLE_WIDTH} in flight at most…`);
      Object.assign(run, await usersSample(rig, pools, o, errors));
    }
    const send = alternate(pools.map((p) => makeSender(p, rig.target, bodies, errors)));
    // Warm-up: at least one pass over the bodies, so the peaks measure bench:http's steady state
    // (its visits already known to the app) whatever the setup's rate; at most two minutes.
    const warmEnd = performance.now() + 120_000;
    let warmed = 0;
    for (let i = 1; o.warmup > 0 && (i === 1 || (warmed < bodies.size && performance.now() < warmEnd)); i++) {
      o.log(`${tag} warm-up ${i}: ${o.warmup} s, ${o.concurrency} callers (${fmtInt(warmed)} of ${fmtInt(bodies.size)} bodies sent)…`);
      const w = await measure(rig, () => closedLoop({ concurrency: o.concurrency, durationMs: o.warmup * 1000, send }));
      warmed += w.result.sent;
      o.log(`${tag} warm-up ${i}: ${describe(w)}`);
    }
    for (let i = 1; i <= o.rounds; i++) {
      o.log(`${tag} peak ${i}/${o.rounds}: closed loop, ${o.concurrency} callers over ${rig.nodes.length} node(s), ${o.seconds} s…`);
      const p = await measure(rig, () => closedLoop({ concurrency: o.concurrency, durationMs: o.seconds * 1000, send }));
      run.peaks.push(p);
      o.log(`${tag} peak ${i}/${o.rounds}: ${describe(p)}`);
    }
    const fraction = o.openFraction ?? 0.7;
    const rate = fraction * median(run.peaks.map((p) => p.result.rps));
    if (!(rate >= 1)) {
      o.log(`${tag} no open-loop phase: the peak rate is too low (${rate})`);
      return run;
    }
    await Promise.all(pools.map((p) => p.close()));
    pools = rig.nodes.map((n) => newPool(n.url, Math.max(32, per * 2)));
    const openSend = alternate(pools.map((p) => makeSender(p, rig.target, bodies, errors)));
    // A short settle at the rate first: the phase starts from a steady state, not the peak's backlog.
    await openLoop({ rate, durationMs: Math.min(2000, o.seconds * 500), send: openSend });
    for (let i = 1; i <= o.rounds; i++) {
      o.log(`${tag} open loop ${i}/${o.rounds} at ${Math.round(fraction * 100)}% of peak: ${fmtInt(rate)} req/s for ${o.seconds} s…`);
      const p = await measure(rig, () => openLoop({ rate, durationMs: o.seconds * 1000, send: openSend }));
      run.opens.push(p);
      o.log(`${tag} open loop ${i}/${o.rounds}: ${describe(p)}`);
    }
    return run;
  } finally {
    await Promise.all(pools.map((p) => p.destroy().catch(() => {})));
  }
}
