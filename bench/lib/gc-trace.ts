/**
 * GC pauses per thread from V8's `--trace-gc` lines, which every isolate of a process (the main
 * thread and each worker thread) prints on stdout:
 *
 *   [pid:0x55d5c3a0]     1234 ms: Scavenge 12.1 (14.0) -> 11.5 (15.0) MB, 1.25 / 0.00 ms  (...) allocation failure;
 *
 * The isolate address names the thread; the pause is the first figure after "MB,". The time is
 * milliseconds since that isolate started, which the caller maps to wall time (stdout through a
 * pipe is block-buffered, so a line's arrival can lag its GC by seconds).
 */

export interface GcEvent { isolate: string; isolateMs: number; kind: string; pauseMs: number; heapAfterMb: number }

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: ([A-Za-z -]+?)(?: \([a-z ]+\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms/;

export function parseGcLine(line: string): GcEvent | null {
  const m = LINE.exec(line);
  if (!m) return null;
  return { isolate: m[1], isolateMs: Number(m[2]), kind: m[3], pauseMs: Number(m[5]), heapAfterMb: Number(m[4]) };
}

/** Pauses gathered per thread and per time slot; threads named in order of first appearance (t0 is the main thread). */
export class GcLedger {
  private readonly names = new Map<string, string>();
  /** isolate → wall ms at which its clock started (its first line's arrival minus its own time, kept at the earliest). */
  private readonly origin = new Map<string, number>();
  readonly events: Array<GcEvent & { thread: string; wallMs: number }> = [];

  add(e: GcEvent, arrivedWallMs: number): void {
    let name = this.names.get(e.isolate);
    if (!name) this.names.set(e.isolate, (name = `t${this.names.size}`));
    // The earliest arrival − isolate time bounds the isolate's start from above; buffering only delays lines.
    const o = Math.min(this.origin.get(e.isolate) ?? Infinity, arrivedWallMs - e.isolateMs);
    this.origin.set(e.isolate, o);
    this.events.push({ ...e, thread: name, wallMs: o + e.isolateMs });
  }

  threads(): string[] {
    return [...this.names.values()];
  }

  /** Per thread within [fromMs, toMs): total pause, largest pause, count, heap after the last GC. */
  slot(fromMs: number, toMs: number): Map<string, { totalMs: number; maxMs: number; n: number; heapMb: number }> {
    const out = new Map<string, { totalMs: number; maxMs: number; n: number; heapMb: number }>();
    for (const e of this.events) {
      if (e.wallMs < fromMs || e.wallMs >= toMs) continue;
      let s = out.get(e.thread);
      if (!s) out.set(e.thread, (s = { totalMs: 0, maxMs: 0, n: 0, heapMb: 0 }));
      s.totalMs += e.pauseMs;
      s.maxMs = Math.max(s.maxMs, e.pauseMs);
      s.n++;
      s.heapMb = e.heapAfterMb;
    }
    return out;
  }
}
