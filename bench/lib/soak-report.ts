/** The soak benchmark's verdicts and its section of docs/performance.md. */
import { fmtInt, fmtMs, fmtShare, markdownTable } from './table.js';
import { median } from './stats.js';
import { gcSplit, TAIL_MS, type Minute } from './soak-minutes.js';

const gen = (m: Minute) => `${fmtMs(m.generator.p99Ms)} / ${fmtMs(m.generator.maxMs)}`;

export interface SoakRun {
  label: string;
  rate: number;
  rateNote: string;
  minutes: number;
  requests: string;
  dwell?: { minutes: Minute[]; readyMs: number; errors: Record<string, number>; cacheMb: string };
  floor?: { minutes: Minute[] };
  loadStart: number;
  loadEnd: number;
}

export const TARGET_SHARE = 0.005;
export const TARGET_P99_RATIO = 1.5;
export const TARGET_SLOPE_MB_MIN = 2;

/** Least-squares slope of anonymous memory (MB a minute) over the second half of the minutes. */
export function secondHalf(ms: Minute[]): { slope: number; plateau: number; from: number } {
  const half = ms.slice(Math.floor(ms.length / 2)).filter((m) => m.memory);
  if (half.length < 2) return { slope: NaN, plateau: half[0]?.memory?.anonMb ?? NaN, from: half[0]?.minute ?? NaN };
  const xs = half.map((m) => m.minute), ys = half.map((m) => m.memory!.anonMb);
  const mx = xs.reduce((a, b) => a + b) / xs.length, my = ys.reduce((a, b) => a + b) / ys.length;
  let num = 0, den = 0;
  for (let i = 0; i < xs.length; i++) { num += (xs[i] - mx) * (ys[i] - my); den += (xs[i] - mx) ** 2; }
  return { slope: num / den, plateau: Math.max(...ys), from: xs[0] };
}

export interface Verdict { line: string; met: boolean | null }

export function verdicts(run: SoakRun): Verdict[] {
  const out: Verdict[] = [];
  const d = run.dwell?.minutes ?? [];
  const f = run.floor?.minutes ?? [];
  if (d.length) {
    const shares = d.map((m) => m.server?.share ?? NaN);
    const bad = d.filter((m) => !(m.server && m.server.share <= TARGET_SHARE));
    out.push({ met: bad.length === 0, line: `server histogram, detections over 50 ms: every minute ≤ ${TARGET_SHARE * 100} %? ` +
      `${bad.length === 0 ? 'yes' : `no, ${bad.length} of ${d.length} minutes over (${bad.map((m) => `min ${m.minute}: ${((m.server?.share ?? NaN) * 100).toFixed(2)} %`).join(', ')})`}; worst ${(Math.max(...shares) * 100).toFixed(2)} %` });
    const h = secondHalf(d);
    out.push({ met: Number.isFinite(h.slope) ? h.slope <= TARGET_SLOPE_MB_MIN : null,
      line: `anonymous memory over minutes ${h.from}–${d.length}: ${h.slope >= 0 ? '+' : ''}${h.slope.toFixed(1)} MB a minute (target ≤ ${TARGET_SLOPE_MB_MIN}), plateau ${h.plateau.toFixed(0)} MB` });
  }
  if (d.length && f.length) {
    const floorP99 = median(f.map((m) => m.client.p99));
    const worst = Math.max(...d.map((m) => m.client.p99));
    const bad = d.filter((m) => m.client.p99 > TARGET_P99_RATIO * floorP99);
    out.push({ met: bad.length === 0, line: `client p99 within ${TARGET_P99_RATIO} × the floor's (its median minute: ${fmtMs(floorP99)} ms → limit ${fmtMs(TARGET_P99_RATIO * floorP99)} ms)? ` +
      `${bad.length === 0 ? 'yes' : `no, ${bad.length} of ${d.length} minutes over`}; Dwell's worst minute ${fmtMs(worst)} ms (${(worst / floorP99).toFixed(2)} ×)` });
  }
  return out;
}

function dwellTable(ms: Minute[]): string {
  const header = ['min', 'req/s', 'errors', 'client p50 ms', 'p99 ms', 'max ms', 'server >50 ms', 'server mean ms', `over ${TAIL_MS} ms client / server`, 'generator delay p99 / max ms', 'anon MB', 'file MB', 'GC main ms (max)', 'GC other threads ms (max)', 'GC per other thread ms (count)', 'tasks per worker', 'CPU ms/req main + others', 'load'];
  const rows = ms.map((m) => {
    const g = gcSplit(m.gc);
    return [String(m.minute), fmtInt(m.ok / 60), String(m.errors), fmtMs(m.client.p50), fmtMs(m.client.p99), fmtMs(m.client.max),
      m.server ? `${(m.server.share * 100).toFixed(2)} %` : '–', m.server ? fmtMs(m.server.meanMs) : '–',
      `${fmtShare(m.tail.client)} / ${fmtShare(m.tail.server)}`, gen(m),
      m.memory ? m.memory.anonMb.toFixed(0) : '–', m.memory ? m.memory.fileMb.toFixed(0) : '–',
      `${g.main.totalMs.toFixed(0)} (${fmtMs(g.main.maxMs)})`, `${g.others.totalMs.toFixed(0)} (${fmtMs(g.others.maxMs)})`,
      Object.entries(m.gc).filter(([t]) => t !== 't0').sort().map(([t, v]) => `${t} ${v.totalMs.toFixed(0)} (${v.n})`).join(' · ') || '–',
      m.workers ? Object.entries(m.workers).sort().map(([w, n]) => `${w} ${n}`).join(' · ') : '–',
      m.cpu ? `${m.cpu.mainMs.toFixed(2)} + ${m.cpu.otherMs.toFixed(2)}` : '–', m.load1.toFixed(1)];
  });
  return markdownTable(header, rows, header.map((_, i) => (i === 0 ? 'left' : 'right')));
}

function floorTable(ms: Minute[]): string {
  const header = ['min', 'req/s', 'errors', 'client p50 ms', 'p99 ms', 'max ms', `client over ${TAIL_MS} ms`, 'generator delay p99 / max ms', 'anon MB', 'load'];
  const rows = ms.map((m) => [String(m.minute), fmtInt(m.ok / 60), String(m.errors), fmtMs(m.client.p50), fmtMs(m.client.p99), fmtMs(m.client.max), fmtShare(m.tail.client), gen(m),
    m.memory ? m.memory.anonMb.toFixed(0) : '–', m.load1.toFixed(1)]);
  return markdownTable(header, rows, header.map((_, i) => (i === 0 ? 'left' : 'right')));
}

export function markdown(run: SoakRun): string {
  const parts = [`**${run.label}**: ${run.rateNote}, ${run.minutes} min; requests: ${run.requests}. Load average ${run.loadStart.toFixed(1)} at the start, ${run.loadEnd.toFixed(1)} at the end.`];
  if (run.dwell) {
    parts.push(`Dwell (ready ${(run.dwell.readyMs / 1000).toFixed(1)} s after start; cache bound ${run.dwell.cacheMb}; errors ${JSON.stringify(run.dwell.errors)}):`, dwellTable(run.dwell.minutes));
  }
  if (run.floor) parts.push('Floor server, same generator, same rate, after Dwell:', floorTable(run.floor.minutes));
  parts.push(verdicts(run).map((v) => `- ${v.met === null ? '?' : v.met ? 'met' : '**not met**'}: ${v.line}`).join('\n'));
  return parts.join('\n\n');
}
