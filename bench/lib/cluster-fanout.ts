/**
 * bench:cluster's fan-out: how NATS traffic per request changes with the number of nodes (the
 * same requests sent to 1, 2 and 4 nodes), the issue-36 targets on it, and the slope per extra
 * node that the projection (cluster-projection.ts) adds for a fleet's size.
 */
import type { Phase, SetupRun } from './cluster-phases.js';
import type { NatsTraffic } from './nats-monitor.js';
import { fmtInt, fmtMs, markdownTable } from './table.js';

const TARGET_FANOUT = 1.2;
const TARGET_WRITES = 4;
const TARGET_CPU_RATIO = 2;

/** Sums of a run's phases: per request figures are sums over sums, so a bigger sample weighs more. */
export interface Totals { requests: number; outMsgs: number; outBytes: number; inMsgs: number; writes: number; natsCpuMs: number; nodeCpuMs: number }

const answered = (p: Phase) => Math.max(1, p.result.ok + p.result.errors);
const stored = (t: NatsTraffic) => [...t.stored.values()].reduce((a, n) => a + n, 0);
const cpuMs = (cores: number, p: Phase) => cores * 1000 * p.result.seconds;

/** The phases' sums, less what the setup does a second at idle over their wall time (`idle`), when given. */
function totals(ps: readonly Phase[], idle?: Phase): Totals | null {
  const withNats = ps.filter((p) => p.nats);
  if (!withNats.length) return null;
  const sum = (f: (p: Phase) => number) => withNats.reduce((a, p) => a + f(p), 0);
  const wall = sum((p) => p.wallS);
  const less = (f: (i: Phase) => number) => (idle?.nats ? (f(idle) / idle.wallS) * wall : 0);
  return {
    requests: sum(answered), outMsgs: sum((p) => p.nats!.outMsgs) - less((i) => i.nats!.outMsgs), outBytes: sum((p) => p.nats!.outBytes) - less((i) => i.nats!.outBytes),
    inMsgs: sum((p) => p.nats!.inMsgs) - less((i) => i.nats!.inMsgs), writes: sum((p) => stored(p.nats!)) - less((i) => stored(i.nats!)),
    natsCpuMs: sum((p) => cpuMs(p.natsCores, p)) - less((i) => cpuMs(i.natsCores, i)), nodeCpuMs: sum((p) => cpuMs(p.nodeCores, p)),
  };
}

/**
 * New-visit requests: new users' first requests and the same users' next ones (both teach the
 * app new visits), less the setup's idle traffic over their time: per request, not per node and second.
 */
export const newVisits = (r: SetupRun): Totals | null => totals([r.newUsers, r.returning].filter((p): p is Phase => !!p), r.idle);
/** What a setup's nodes cost NATS a second, whatever the requests. */
export const idleRate = (r: SetupRun): { outMsgs: number; outBytes: number } | null =>
  (r.idle?.nats ? { outMsgs: r.idle.nats.outMsgs / r.idle.wallS, outBytes: r.idle.nats.outBytes / r.idle.wallS } : null);
export const mix = (r: SetupRun): Totals | null => totals(r.opens.length ? r.opens : r.peaks);

/** Least squares y = a + b·x. */
export function fit(points: ReadonlyArray<readonly [number, number]>): { a: number; b: number } {
  const n = points.length;
  if (n === 0) return { a: NaN, b: NaN };
  const mx = points.reduce((s, [x]) => s + x, 0) / n, my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const b = sxx > 0 ? points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx : 0;
  return { a: my - b * mx, b };
}

/** Per request and per node beyond the first: the slope of bytes from NATS and NATS CPU over the setups, floored at 0. */
export function perExtraNode(runs: readonly SetupRun[], pick: (r: SetupRun) => Totals | null): { natsOutBytes: number; natsCpuMs: number } | undefined {
  const pts = runs.filter((r) => r.name !== 'embedded').map((r) => [r.nodes, pick(r)] as const).filter((x): x is readonly [number, Totals] => !!x[1]);
  if (new Set(pts.map(([n]) => n)).size < 2) return undefined;
  const slope = (f: (t: Totals) => number) => Math.max(0, fit(pts.map(([n, t]) => [n, f(t) / t.requests] as const)).b);
  return { natsOutBytes: slope((t) => t.outBytes), natsCpuMs: slope((t) => t.natsCpuMs) };
}

export function fanoutTable(runs: readonly SetupRun[]): string {
  const clusters = runs.filter((r) => r.name !== 'embedded');
  const base = clusters.find((r) => r.nodes === 1);
  const b = base && newVisits(base);
  const rows = clusters.map((r) => {
    const t = newVisits(r), m = mix(r);
    const per = (x: Totals | null | undefined, f: (t: Totals) => number, d = 1) => (x ? (f(x) / x.requests).toFixed(d) : '–');
    const i = idleRate(r);
    return [r.name, String(r.nodes), i ? `${i.outMsgs.toFixed(1)} / ${fmtInt(i.outBytes)} B` : '–', per(t, (x) => x.outMsgs), t && b ? (t.outMsgs / t.requests / (b.outMsgs / b.requests)).toFixed(2) : '–',
      t ? fmtInt(t.outBytes / t.requests) : '–', per(t, (x) => x.inMsgs), per(t, (x) => x.writes, 2), per(m, (x) => x.outMsgs), per(m, (x) => x.writes, 2)];
  });
  return markdownTable(
    ['setup', 'nodes', 'idle: msgs / bytes from NATS a second', 'new visits: msgs from NATS / req', '× 1 node', 'bytes from NATS / req', 'msgs to NATS / req', 'writes stored / req', 'mix: msgs from NATS / req', 'writes stored / req'],
    rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

export function fleetTargets(runs: readonly SetupRun[]): string {
  const rows: string[][] = [];
  const by = (nodes: number) => runs.find((r) => r.name !== 'embedded' && r.nodes === nodes);
  const one = by(1), four = by(4), embedded = runs.find((r) => r.name === 'embedded');
  const t1 = one && newVisits(one), t4 = four && newVisits(four);
  if (t1 && t4) {
    const x = t4.outMsgs / t4.requests / (t1.outMsgs / t1.requests);
    rows.push([`msgs from NATS / new-visit request, 4 nodes ≤ ${TARGET_FANOUT} × 1 node`, `${(t4.outMsgs / t4.requests).toFixed(1)} / ${(t1.outMsgs / t1.requests).toFixed(1)} = ${x.toFixed(2)}`, x <= TARGET_FANOUT ? 'PASS' : 'FAIL']);
  }
  for (const r of runs.filter((x) => x.name !== 'embedded')) {
    const t = newVisits(r);
    if (t) rows.push([`${r.name}: writes to NATS / new-visit request ≤ ${TARGET_WRITES}`, (t.writes / t.requests).toFixed(2), t.writes / t.requests <= TARGET_WRITES ? 'PASS' : 'FAIL']);
  }
  if (one?.newUsers && embedded?.newUsers) {
    const ms = (p: Phase) => (p.nodeCores * 1000 * p.result.seconds) / answered(p);
    const c = ms(one.newUsers), e = ms(embedded.newUsers);
    rows.push([`node CPU, a new user's first request: cluster-1 ≤ ${TARGET_CPU_RATIO} × embedded`, `${fmtMs(c)} / ${fmtMs(e)} ms = ${(c / e).toFixed(2)}`, c / e <= TARGET_CPU_RATIO ? 'PASS' : 'FAIL']);
  }
  return rows.length ? markdownTable(['target (issue 36)', 'measured', 'result'], rows) : '';
}
