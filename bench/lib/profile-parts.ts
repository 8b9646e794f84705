/**
 * A V8 CPU profile (`node --cpu-prof`) split into the parts of a request: each sample under the
 * task function is given to the innermost frame on its stack that names a part (so the learned
 * tables read inside ranking count as learned tables, not ranking), and what names none is the
 * part's caller's "other". Shares are of the task's samples; GC is shown beside them as a share
 * of the whole profile (V8 does not say which function's allocations it collects).
 */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A part: its name and the frames that mean it (function name, and a piece of the file's URL).
 * A rule whose part is '' makes its frames transparent (a wrapper such as a transaction helper,
 * whose callee is the part).
 */
export interface PartRule { part: string; fn?: string; file?: string }
export type FrameMatch = Omit<PartRule, 'part'>;

export interface PartShare { part: string; ms: number; share: number }

export interface ProfileSplit { taskMs: number; totalMs: number; gcMs: number; parts: PartShare[] }

const matches = (r: FrameMatch, fn: string, url: string) => (r.fn === undefined || r.fn === fn) && (r.file === undefined || url.includes(r.file));

/** Splits the samples under the frame `root` by `rules` (first rule that matches a frame wins). */
export function splitProfile(p: CpuProfile, root: FrameMatch, rules: readonly PartRule[], other = 'other'): ProfileSplit {
  const parent = new Map<number, number>();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Per node: the part of its innermost naming frame under the root, or null when not under the root.
  const partOf = new Map<number, string | null>();
  const resolve = (id: number): string | null => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    let x: number | undefined = id;
    let inner: string | null = null;
    let underRoot = false;
    while (x !== undefined) {
      const f = byId.get(x)!.callFrame;
      if (matches(root, f.functionName, f.url)) { underRoot = true; break; }
      if (inner === null) inner = rules.find((r) => matches(r, f.functionName, f.url))?.part || null;
      x = parent.get(x);
    }
    const part = underRoot ? inner ?? other : null;
    partOf.set(id, part);
    return part;
  };
  const ms = new Map<string, number>();
  let totalMs = 0, gcMs = 0, taskMs = 0;
  p.samples.forEach((id, i) => {
    const t = (p.timeDeltas[i] ?? 0) / 1000;
    totalMs += t;
    if (byId.get(id)?.callFrame.functionName === '(garbage collector)') gcMs += t;
    const part = resolve(id);
    if (part === null) return;
    taskMs += t;
    ms.set(part, (ms.get(part) ?? 0) + t);
  });
  const parts = [...ms].map(([part, m]) => ({ part, ms: m, share: m / (taskMs || 1) })).sort((a, b) => b.ms - a.ms);
  return { taskMs, totalMs, gcMs, parts };
}
