/**
 * bench:cluster's report: the setups side by side (peak, latency at 70 % of the peak, CPU per
 * request), the issue's targets, NATS traffic per request (the mix, then new against returning
 * users) and the fleet projection with its assumptions.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { SAMPLE_RATE, SAMPLE_SETTLE_MS, type Phase, type SampleRun, type SetupRun } from './cluster-phases.js';
import { storedPerRequest, type NatsTraffic } from './nats-monitor.js';
import { assumptionLines, projectionTable, type MeasuredCosts } from './cluster-projection.js';
import { median, spread, type Spread } from './stats.js';
import { fanoutTable, fleetTargets, mix, newVisits, perExtraNode } from './cluster-fanout.js';
import { WINDOW_MS } from '../../src/state/nats/learned-flush.js';
import { fmtInt, fmtMs, markdownTable } from './table.js';
import type { BodyPool } from './signing.js';

const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 50;

const answered = (p: Phase) => Math.max(1, p.result.ok + p.result.errors);
const cpuMs = (cores: number, p: Phase) => (p.result.rps > 0 ? (cores * 1000) / p.result.rps : NaN);
const med = (ps: Phase[], f: (p: Phase) => number) => median(ps.map(f));
const range = (s: Spread, f: (n: number) => string) => (s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`);
const natsPer = (ps: Phase[], f: (t: NatsTraffic) => number) => med(ps.filter((p) => p.nats), (p) => f(p.nats!) / answered(p));
const dec = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

function storedText(t: NatsTraffic, requests: number): string {
  const s = storedPerRequest(t, requests);
  return s.length ? s.map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ') : 'none';
}

function mainTable(runs: SetupRun[]): string {
  const embedded = runs.find((r) => r.name === 'embedded');
  const base = embedded ? median(embedded.peaks.map((p) => p.result.rps)) : NaN;
  const rows = runs.map((r) => {
    const peak = spread(r.peaks.map((p) => p.result.rps));
    const o = r.opens;
    return [
      r.name, String(r.nodes), range(peak, fmtInt), r.name === 'embedded' ? '1' : dec(peak.median / base, 2),
      o.length ? `${fmtInt(o[0].result.targetRps ?? NaN)} → ${fmtInt(med(o, (p) => p.result.rps))}` : '–',
      o.length ? fmtMs(med(o, (p) => p.result.latency.p50)) : '–',
      o.length ? range(spread(o.map((p) => p.result.latency.p99)), fmtMs) : '–',
      o.length ? fmtMs(Math.max(...o.map((p) => p.result.latency.max))) : '–',
      String([...r.peaks, ...o].reduce((a, p) => a + p.result.errors, 0)),
      `${fmtMs(med(r.peaks, (p) => cpuMs(p.nodeCores, p)))} / ${o.length ? fmtMs(med(o, (p) => cpuMs(p.nodeCores, p))) : '–'}`,
      o.length ? fmtMs(med(o, (p) => (p.mainCpuS * 1000) / answered(p))) : '–',
      r.name === 'embedded' ? '–' : `${fmtMs(med(r.peaks, (p) => cpuMs(p.natsCores, p)))} / ${o.length ? fmtMs(med(o, (p) => cpuMs(p.natsCores, p))) : '–'}`,
    ];
  });
  return markdownTable(
    ['setup', 'nodes', 'peak req/s, median (min–max)', '× embedded', 'at 70 %: req/s asked → served', 'p50 ms', 'p99 ms, median (min–max)', 'max ms', 'errors',
      'node CPU ms/req, peak / 70 %', 'of it event loop, 70 %', 'NATS CPU ms/req (all servers), peak / 70 %'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

function targets(runs: SetupRun[]): string {
  const embedded = runs.find((r) => r.name === 'embedded');
  const base = embedded ? median(embedded.peaks.map((p) => p.result.rps)) : NaN;
  const rows: string[][] = [];
  for (const r of runs.filter((x) => x.name !== 'embedded')) {
    const peak = median(r.peaks.map((p) => p.result.rps));
    const clean = r.peaks.every((p) => p.result.errors === 0);
    if (embedded) {
      rows.push([`${r.name}: req/s ≥ ${TARGET_RATIO} × embedded`, `${fmtInt(peak)} / ${fmtInt(base)} = ${dec(peak / base, 2)}`,
        !clean ? 'FAIL (errors)' : peak / base >= TARGET_RATIO ? 'PASS' : 'FAIL']);
    }
    if (r.opens.length) {
      const p99 = med(r.opens, (p) => p.result.latency.p99);
      const kept = r.opens.every((p) => p.result.rps >= 0.95 * (p.result.targetRps ?? 0));
      const errors = r.opens.some((p) => p.result.errors);
      rows.push([`${r.name}: p99 ≤ ${TARGET_P99_MS} ms at 70 % of its peak`, `${fmtMs(p99)} ms at ${fmtInt(med(r.opens, (p) => p.result.rps))} req/s`,
        errors ? 'FAIL (errors)' : !kept ? 'FAIL (rate not sustained)' : p99 <= TARGET_P99_MS ? 'PASS' : 'FAIL']);
    }
  }
  return rows.length ? markdownTable(['target (issue 16)', 'measured (medians)', 'result'], rows) : '';
}

function natsMixTable(runs: SetupRun[]): string {
  const rows: string[][] = [];
  for (const r of runs.filter((x) => x.name !== 'embedded')) {
    for (const [phase, ps] of [['peak', r.peaks], ['70 %', r.opens]] as const) {
      const withNats = ps.filter((p) => p.nats);
      if (!withNats.length) continue;
      const mid = withNats[Math.floor(withNats.length / 2)];
      rows.push([
        `${r.name}, ${phase}`, dec(natsPer(ps, (t) => t.inMsgs)), fmtInt(natsPer(ps, (t) => t.inBytes)),
        dec(natsPer(ps, (t) => t.outMsgs)), fmtInt(natsPer(ps, (t) => t.outBytes)), fmtInt(natsPer(ps, (t) => t.diskBytes)),
        storedText(mid.nats!, answered(mid)),
      ]);
    }
  }
  return markdownTable(
    ['setup, phase', 'msgs to NATS (≈ round trips)', 'bytes to NATS', 'msgs from NATS', 'bytes from NATS', 'bytes to disk', 'writes stored, by bucket'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
}

function usersTable(runs: SetupRun[]): string {
  const rows: string[][] = [];
  const row = (name: string, who: string, s: SampleRun) => {
    const n = answered(s);
    const t = s.nats;
    rows.push([name, who, `${s.result.ok}/${s.result.sent}`, fmtInt(s.result.rps), fmtMs(s.result.latency.p50), fmtMs(cpuMs(s.nodeCores, s)), name === 'embedded' ? '–' : fmtMs(cpuMs(s.natsCores, s)),
      t ? dec(t.inMsgs / n) : '–', t ? fmtInt(t.inBytes / n) : '–', t ? dec(t.outMsgs / n) : '–', t ? fmtInt(t.outBytes / n) : '–', t ? storedText(t, n) : '–']);
  };
  for (const r of runs) {
    if (r.newUsers) row(r.name, 'new user, first request', r.newUsers);
    if (r.returning) row(r.name, 'same user, next request', r.returning);
  }
  return rows.length
    ? markdownTable(['setup', 'request', '2xx', 'req/s', 'p50 ms', 'node CPU ms/req', 'NATS CPU ms/req', 'msgs to NATS', 'bytes to NATS', 'msgs from NATS', 'bytes from NATS', 'writes stored, by bucket'],
      rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'])
    : '';
}

/** Dwell's buckets and streams have 3 replicas from three servers up, else 1 (src/state/nats/connect.ts). */
const replicasOf = (servers: number) => (servers >= 3 ? 3 : 1);

function costsOf(ps: Phase[], measuredReplicas: number, perExtra?: MeasuredCosts['perExtraNode']): MeasuredCosts {
  return {
    perExtraNode: perExtra,
    measuredReplicas,
    nodeCpuMs: med(ps, (p) => cpuMs(p.nodeCores, p)),
    nodeMainMs: med(ps, (p) => (p.mainCpuS * 1000) / answered(p)),
    natsCpuMs: med(ps, (p) => cpuMs(p.natsCores, p)),
    natsInBytes: natsPer(ps, (t) => t.inBytes),
    natsOutBytes: natsPer(ps, (t) => t.outBytes),
    natsDiskBytes: natsPer(ps, (t) => t.diskBytes),
  };
}

export interface ReportOptions { natsServers: number; seconds: number; rounds: number; warmup: number; concurrency: number; usersSample: number; bodies: BodyPool }

export function clusterReport(runs: SetupRun[], o: ReportOptions): string {
  const out: string[] = [mainTable(runs), ''];
  const t = targets(runs);
  if (t) out.push(t, '');
  if (runs.some((r) => r.name !== 'embedded')) {
    out.push('NATS traffic per request of the mix (medians of the rounds; the nats-server\'s /varz and /jsz over each phase ÷ requests answered). ' +
      'Msgs to NATS are what the nodes send: KV gets, puts and creates (each a request answered by the server: one round trip), watch flow control. ' +
      'Msgs from NATS include the learned values\' changes (one message a window a node) and watch deliveries of fences and beacons (every detection thread follows those).' +
      (o.natsServers > 1 ? ` Summed over the ${o.natsServers} servers, so replication and forwarding between them are included: the round trips are the one-server run's figure.` : ''), '');
    out.push(natsMixTable(runs), '');
    const u = usersTable(runs);
    if (u) {
      out.push(`What a request costs and writes when its visits are new to the app (the mix's are known after its first pass, which the warm-up covers): ` +
        `${o.usersSample} new users' first requests, then the same users' next requests (a later day), on a fresh app before any other load, ${SAMPLE_RATE} a second (every setup alike: how many requests share a learned write depends on the rate); ` +
        `the meters stop ${SAMPLE_SETTLE_MS / 1000} s after the last answer, so the learned values handed on once a ${WINDOW_MS / 1000} s window and written every third are counted.`, '', u, '');
    }
    if (runs.filter((x) => x.name !== 'embedded').length > 1) {
      out.push('The fan-out: the same requests sent to 1, 2 and 4 nodes (alternated over them). A node reads the learned values into one copy its ' +
        'detection threads share, hands what they learned to the fleet\'s writer once a window, and takes the writer\'s changes in one message a window ' +
        '(state/nats/learned-fleet.ts), so what comes from NATS per request does not grow with the nodes. Per request: the new-visit samples\' traffic ' +
        'less the setup\'s idle traffic over the same time (the idle column, measured for 5 s before them: what its nodes cost NATS a second whatever ' +
        'the requests: lease checks, venue-store polls, watch heartbeats), ÷ requests; the mix\'s as measured.', '', fanoutTable(runs), '');
      const ft = fleetTargets(runs);
      if (ft) out.push(ft, '');
    }
    const one = runs.find((r) => r.name === 'cluster-1') ?? runs.find((r) => r.name !== 'embedded')!;
    const r = replicasOf(o.natsServers);
    const sets: Array<[string, MeasuredCosts]> = [[`bench:http mix at 70 % (${one.name})`, costsOf(one.opens.length ? one.opens : one.peaks, r, perExtraNode(runs, mix))]];
    const fresh = [one.newUsers, one.returning].filter((p): p is Phase => !!p);
    if (fresh.length) sets.push([`new visits (${one.name})`, costsOf(fresh, r, perExtraNode(runs, newVisits))]);
    out.push('Projection from the measured costs per request:', '', projectionTable([10_000, 100_000], sets), '', ...assumptionLines(sets), '');
  }
  out.push(`Setup: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, nats-server from the distribution, ` +
    `${o.natsServers === 1 ? 'one server, R1' : `${o.natsServers} routed servers, R${replicasOf(o.natsServers)} (NATS figures summed over the servers, replication included)`}, ` +
    `JetStream on the local disk; the load client, the node(s) and the nats-server share the machine. Per setup: warm-up in ${o.warmup} s steps until one pass over the bodies, ${o.rounds} × ${o.seconds} s ` +
    `closed-loop peak (${o.concurrency} keep-alive connections split over the nodes, requests alternated between them), then ${o.rounds} × ${o.seconds} s open loop ` +
    `at 70 % of the median peak, latency from the scheduled send time. Bodies: bench:http's (${o.bodies.size} distinct, ${(o.bodies.meanGzipBytes / 1024).toFixed(1)} KiB gzip, 500 users). ` +
    `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}.`);
  for (const r of runs) for (const [k, e] of r.errors) out.push(`${r.name} errors ${k}: ${e.count} (first: ${e.example})`);
  return out.join('\n');
}
