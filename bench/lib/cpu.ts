/**
 * CPU accounting for benchmarks (Linux /proc; elsewhere the figures are NaN): how busy a child
 * process was, how busy this process was, and how busy the whole machine was, over a phase.
 * Comparing them shows whether the client or something else was the bottleneck.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** CPU seconds (user + system, all threads) a process has used, or NaN. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is parenthesised and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S; // utime, stime (fields 14, 15)
  } catch {
    return NaN;
  }
}

/** Busy and total CPU seconds of the whole machine since boot, or NaN. */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] || 0); // idle + iowait
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / TICKS_PER_S, total: total / TICKS_PER_S };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

export interface CpuReport {
  /** Cores' worth used by each watched process over the phase (1.0 = one core busy throughout). */
  processes: Record<string, number>;
  /** Cores' worth used by this process. */
  self: number;
  /** Cores' worth used by the whole machine, and by everything not watched here. */
  machine: number;
  others: number;
  cores: number;
}

/** Starts a measurement; `end()` answers the CPU used since. */
export function cpuMeter(watch: Record<string, number>): { end(): CpuReport } {
  const t0 = process.hrtime.bigint();
  const self0 = process.cpuUsage();
  const procs0 = Object.fromEntries(Object.entries(watch).map(([k, pid]) => [k, processCpuSeconds(pid)]));
  const m0 = machineCpuSeconds();
  return {
    end() {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const selfUse = process.cpuUsage(self0);
      const self = (selfUse.user + selfUse.system) / 1e6 / wall;
      const processes: Record<string, number> = {};
      for (const [k, pid] of Object.entries(watch)) processes[k] = (processCpuSeconds(pid) - procs0[k]) / wall;
      const m1 = machineCpuSeconds();
      const machine = (m1.busy - m0.busy) / wall;
      const watched = self + Object.values(processes).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
      return { processes, self, machine, others: Math.max(0, machine - watched), cores: availableParallelism() };
    },
  };
}
