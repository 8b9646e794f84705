/**
 * CPU time of a process by thread (Linux /proc/<pid>/task; elsewhere empty): where a server's
 * time goes between its event-loop thread and its worker threads. Node names every thread
 * "node", so threads are told apart by role only where the role is certain (the main thread's
 * id is the process id) and otherwise by how busy they were: under detection load the busiest
 * other threads are the detection workers.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** CPU seconds (user + system) of every thread of a process, by thread id. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(f[11]) + Number(f[12])) / TICKS_PER_S);
    } catch { /* the thread ended between the listing and the read */ }
  }
  return out;
}

export interface ThreadSplit {
  /** CPU seconds of the main (event-loop) thread over the phase. */
  main: number;
  /** CPU seconds of the `busiest` most used other threads, most used first. */
  busiest: number[];
  /** CPU seconds of every other thread (GC helpers, libuv pool, delivery, …). */
  rest: number;
}

/** Starts a per-thread measurement of `pid`; `end(busiest)` answers the split since. */
export function threadMeter(pid: number): { end(busiest: number): ThreadSplit } {
  const t0 = threadCpuSeconds(pid);
  return {
    end(busiest) {
      const t1 = threadCpuSeconds(pid);
      let main = 0;
      const others: number[] = [];
      for (const [tid, s] of t1) {
        const used = s - (t0.get(tid) ?? 0);
        if (tid === pid) main = used;
        else others.push(used);
      }
      others.sort((a, b) => b - a);
      return { main, busiest: others.slice(0, busiest), rest: others.slice(busiest).reduce((a, b) => a + b, 0) };
    },
  };
}
