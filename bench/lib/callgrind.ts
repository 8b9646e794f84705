/**
 * Reading a callgrind dump (`--tool=callgrind`, event Ir) of a Node process, with V8's generated
 * code named from the process's perf map (`node --perf-basic-prof`): what bench:instructions needs
 * to give each part of a request its inclusive instruction count.
 *
 * Callgrind knows only call arcs (caller → callee, with the callee's inclusive cost), not stacks.
 * A part's inclusive count is the self cost of its functions plus their arcs to functions outside
 * the part: exact when the part's functions are not re-entered underneath themselves, which is why
 * the parts are named by their entry functions (bench/instructions.ts), not by whole directories.
 */
import { readFileSync } from 'node:fs';

export interface CgFunction {
  name: string;
  /** Instructions executed in the function itself. */
  self: number;
  /** Inclusive instructions of its calls, by callee id. */
  calls: Map<number, number>;
}

export interface CgDump { total: number; fns: Map<number, CgFunction> }

/** One dump file (`positions: line`, one event). Names are compressed: `fn=(id) name` the first time, `fn=(id)` after. */
export function readDump(file: string): CgDump {
  const names = new Map<number, string>();
  const fns = new Map<number, CgFunction>();
  const fnOf = (spec: string): number => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) throw new Error(`callgrind: unexpected function spec ${spec}`);
    const id = Number(m[1]);
    if (m[2] !== undefined) names.set(id, m[2]);
    if (!fns.has(id)) fns.set(id, { name: '', self: 0, calls: new Map() });
    return id;
  };
  let total = 0, cur: CgFunction | undefined, callee = -1, callLine = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const c = line.charCodeAt(0);
    const isCost = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42; // digit, +, -, *
    if (isCost) {
      const ir = Number(line.slice(line.indexOf(' ') + 1)) || 0;
      if (callLine) { cur!.calls.set(callee, (cur!.calls.get(callee) ?? 0) + ir); callLine = false; } else if (cur) cur.self += ir;
      continue;
    }
    if (line.startsWith('fn=')) cur = fns.get(fnOf(line.slice(3)));
    else if (line.startsWith('cfn=')) callee = fnOf(line.slice(4));
    else if (line.startsWith('calls=')) callLine = true;
    else if (line.startsWith('totals:') || line.startsWith('summary:')) total = Number(line.split(/\s+/)[1]);
  }
  // `name'2`: callgrind's copy of a function for a recursive call (--separate-recs): the same function.
  for (const [id, f] of fns) f.name = (names.get(id) ?? `(${id})`).replace(/'\d+$/, '');
  return { total, fns };
}

/** V8's code objects as the perf map lists them: `start size name`, later lines win (code space is reused). */
export function readPerfMap(file: string): Map<number, string> {
  const byStart = new Map<number, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m) byStart.set(parseInt(m[1], 16), m[3]);
  }
  return byStart;
}

/** Callgrind names code it has no symbol for by its entry address: named here from the perf map. */
export function nameJit(dump: CgDump, perfMap: Map<number, string>): void {
  for (const f of dump.fns.values()) {
    if (!/^0x[0-9a-f]+$/.test(f.name)) continue;
    const n = perfMap.get(parseInt(f.name, 16));
    if (n) f.name = n;
  }
}

/** Sum of dumps (several measured passes). */
export function addDumps(dumps: CgDump[]): CgDump {
  const out: CgDump = { total: 0, fns: new Map() };
  // Ids are per file: functions are joined by name.
  const byName = new Map<string, CgFunction>();
  let next = 0;
  const ids = new Map<string, number>();
  for (const d of dumps) {
    out.total += d.total;
    for (const f of d.fns.values()) {
      let g = byName.get(f.name);
      if (!g) { g = { name: f.name, self: 0, calls: new Map() }; byName.set(f.name, g); ids.set(f.name, next); out.fns.set(next++, g); }
      g.self += f.self;
      for (const [callee, ir] of f.calls) {
        const cname = d.fns.get(callee)!.name;
        if (!ids.has(cname)) { const h = { name: cname, self: 0, calls: new Map() }; byName.set(cname, h); ids.set(cname, next); out.fns.set(next++, h); }
        const cid = ids.get(cname)!;
        g.calls.set(cid, (g.calls.get(cid) ?? 0) + ir);
      }
    }
  }
  return out;
}

/** Inclusive instructions of a set of functions: their own plus their calls out of the set. */
export function inclusive(dump: CgDump, match: (name: string) => boolean): { ir: number; fns: number } {
  const set = new Set<number>();
  for (const [id, f] of dump.fns) if (match(f.name)) set.add(id);
  let ir = 0;
  for (const id of set) {
    const f = dump.fns.get(id)!;
    ir += f.self;
    for (const [callee, c] of f.calls) if (!set.has(callee)) ir += c;
  }
  return { ir, fns: set.size };
}
