/**
 * A static spatial hash over fence boxes: a uniform lat/long grid whose cell is about the size of a
 * typical fence, each cell listing the slots whose boxes overlap it. A point query reads one or a
 * few cells: O(1) instead of a tree walk. Fences spanning more than LARGE_CELLS cells go to a small
 * Flatbush instead, so one 100 km fence does not fill thousands of cells.
 *
 * A cell's entries are contiguous and carry the fence's box clipped to the cell and quantised to
 * 8 bits of the cell (rounded outward), [slot, x lo|x hi|y lo|y hi]: the prefilter of a query reads
 * 8 bytes per entry in sequence, and only the boxes that pass touch the fence's record. The query
 * box is quantised by the same arithmetic, so the prefilter never drops a box that meets it; the
 * exact test after it decides.
 */
import Flatbush from 'flatbush';
import { searchFlatbush } from './flatbush-search.js';

const LARGE_CELLS = 16;
/** Fewer large fences than this go to a Flatbush, not a coarser grid. */
const SUB_MIN = 64;
const MIN_CELL = 0.0005, MAX_CELL = 0.05;
const Q = 0xff;
const EMPTY = -1;

/**
 * Where a search writes candidate slots: `reserve(k)` makes room for k more at `n`. A search that
 * reads more than one cell sets `multi`: a fence in two of them comes twice.
 */
export interface Candidates { buf: Int32Array; n: number; multi: boolean; reserve(k: number): Int32Array }

/** The cell, degrees: about the height of a typical fence box (`scale` × the 75th percentile). */
export function cellSize(slots: Uint32Array, box: Float64Array, scale = 1): number {
  const h = new Float64Array(slots.length);
  for (let i = 0; i < slots.length; i++) h[i] = box[4 * slots[i] + 3] - box[4 * slots[i] + 1];
  h.sort();
  return Math.min(MAX_CELL, Math.max(MIN_CELL, scale * (h[Math.floor(h.length * 0.75)] || MIN_CELL)));
}

export class GridTier {
  readonly inv: number;
  private readonly cols: number;
  /** Open addressing, 4 ints an entry: cx, cy (EMPTY: free), first and end entry in `refs`. */
  private table = new Int32Array(4 * 1024).fill(EMPTY);
  private mask = 1023;
  private cells = 0;
  private readonly refs: Uint32Array;
  /** The fences too large for this grid: a coarser grid, or a Flatbush once the grid is coarse. */
  private readonly sub: GridTier | null = null;
  private readonly large: Flatbush | null = null;
  private readonly largeSlots: Uint32Array;
  private stack = new Int32Array(256);

  /** `slots` index into `box` (4 numbers a slot). */
  constructor(readonly slots: Uint32Array, private readonly box: Float64Array, cell = cellSize(slots, box)) {
    this.inv = 1 / cell;
    this.cols = Math.ceil(720 * this.inv) + 1;
    const large: number[] = [];
    let n = 0;
    for (const s of slots) {
      if (this.span(s) > LARGE_CELLS) large.push(s);
      else n += this.place(s, null);
    }
    const t = this.table;
    for (let e = 0, run = 0; e < t.length; e += 4) {
      if (t[e + 1] === EMPTY) continue;
      const count = t[e + 2];
      t[e + 2] = t[e + 3] = run;
      run += count;
    }
    this.refs = new Uint32Array(2 * n);
    for (const s of slots) if (this.span(s) <= LARGE_CELLS) this.place(s, this.refs);
    this.largeSlots = Uint32Array.from(large);
    if (large.length >= SUB_MIN && cell < MAX_CELL) {
      this.sub = new GridTier(this.largeSlots, box, Math.max(2 * cell, cellSize(this.largeSlots, box)));
    } else if (large.length) {
      this.large = new Flatbush(large.length);
      for (const s of large) this.large.add(box[4 * s], box[4 * s + 1], box[4 * s + 2], box[4 * s + 3]);
      this.large.finish();
    }
  }

  /** Calls `v.candidate` for every slot whose box may meet the query box (a slot may come more than once). */
  search(x0: number, y0: number, x1: number, y1: number, v: Candidates): void {
    const inv = this.inv, t = this.table;
    const fx0 = (x0 + 180) * inv, fx1 = (x1 + 180) * inv, fy0 = (y0 + 90) * inv, fy1 = (y1 + 90) * inv;
    const rx0 = Math.floor(fx0), rx1 = Math.floor(fx1), ry0 = Math.floor(fy0), ry1 = Math.floor(fy1);
    // The query's edges within its first and last cells, quantised as the fences' edges are.
    const qx0 = Math.floor((fx0 - rx0) * Q), qx1 = Math.ceil((fx1 - rx1) * Q);
    const qy0 = Math.floor((fy0 - ry0) * Q), qy1 = Math.ceil((fy1 - ry1) * Q);
    const cx0 = Math.max(0, rx0), cx1 = Math.min(this.cols - 1, rx1), cy0 = Math.max(0, ry0), cy1 = ry1;
    if (cx1 > cx0 || cy1 > cy0) v.multi = true;
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.cells) {
      // A query wider than the grid: walk the occupied cells instead of the covered ones.
      for (let e = 0; e < t.length; e += 4) {
        const cx = t[e], cy = t[e + 1];
        if (cy === EMPTY || cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1) continue;
        this.scan(e, cx === rx0 ? qx0 : 0, cx === rx1 ? qx1 : Q, cy === ry0 ? qy0 : 0, cy === ry1 ? qy1 : Q, v);
      }
    } else {
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const e = this.find(cx, cy);
          if (e >= 0) this.scan(e, cx === rx0 ? qx0 : 0, cx === rx1 ? qx1 : Q, cy === ry0 ? qy0 : 0, cy === ry1 ? qy1 : Q, v);
        }
      }
    }
    this.sub?.search(x0, y0, x1, y1, v);
    if (this.large) searchFlatbush(this.large, this.largeSlots, x0, y0, x1, y1, v, this);
  }

  /** Flatbush's stack, grown on demand and kept between queries. */
  stackFor(n: number): Int32Array {
    if (n > this.stack.length) this.stack = new Int32Array(2 * n);
    return this.stack;
  }

  /**
   * Without branches: whether an entry passes is about a coin toss, and a mispredicted branch per
   * entry cost more than the rest of the scan. Every entry is written; only passes advance `m`.
   */
  private scan(e: number, xlo: number, xhi: number, ylo: number, yhi: number, v: Candidates): void {
    const refs = this.refs, t = this.table;
    const k0 = 2 * t[e + 2], end = 2 * t[e + 3];
    const out = v.reserve((end - k0) / 2);
    let m = v.n;
    for (let k = k0; k < end; k += 2) {
      const b = refs[k + 1];
      // Negative (sign bit set) as soon as one edge test fails.
      const fail = (xhi - (b & Q)) | (((b >>> 8) & Q) - xlo) | (yhi - ((b >>> 16) & Q)) | ((b >>> 24) - ylo);
      out[m] = refs[k];
      m += ~fail >>> 31;
    }
    v.n = m;
  }

  private span(s: number): number {
    const b = this.box, inv = this.inv;
    return (Math.floor((b[4 * s + 2] + 180) * inv) - Math.floor((b[4 * s] + 180) * inv) + 1)
      * (Math.floor((b[4 * s + 3] + 90) * inv) - Math.floor((b[4 * s + 1] + 90) * inv) + 1);
  }

  /** Without `out`, counts the slot in each cell it meets; with it, writes its entries there. */
  private place(s: number, out: Uint32Array | null): number {
    const b = this.box, inv = this.inv;
    const fx0 = (b[4 * s] + 180) * inv, fx1 = (b[4 * s + 2] + 180) * inv, fy0 = (b[4 * s + 1] + 90) * inv, fy1 = (b[4 * s + 3] + 90) * inv;
    const rx0 = Math.floor(fx0), rx1 = Math.floor(fx1), ry0 = Math.floor(fy0), ry1 = Math.floor(fy1);
    const qx0 = Math.floor((fx0 - rx0) * Q), qx1 = Math.ceil((fx1 - rx1) * Q);
    const qy0 = Math.floor((fy0 - ry0) * Q), qy1 = Math.ceil((fy1 - ry1) * Q);
    for (let cy = ry0; cy <= ry1; cy++) {
      const y = ((cy === ry0 ? qy0 : 0) | (cy === ry1 ? qy1 : Q) << 8) << 16;
      for (let cx = rx0; cx <= rx1; cx++) {
        // findOrAdd may move the table: read it after.
        if (out === null) { const e = this.findOrAdd(cx, cy); this.table[e + 2]++; continue; }
        const e = this.find(cx, cy), k = 2 * this.table[e + 3]++;
        out[k] = s;
        out[k + 1] = (cx === rx0 ? qx0 : 0) | (cx === rx1 ? qx1 : Q) << 8 | y;
      }
    }
    return (rx1 - rx0 + 1) * (ry1 - ry0 + 1);
  }

  private hash(cx: number, cy: number): number {
    return (Math.imul(cx, 0x9e3779b1) ^ Math.imul(cy, 0x85ebca77)) & this.mask;
  }

  /** The table offset of cell (cx, cy), or -1. */
  private find(cx: number, cy: number): number {
    const t = this.table;
    for (let h = this.hash(cx, cy); ; h = (h + 1) & this.mask) {
      const e = 4 * h;
      if (t[e + 1] === cy && t[e] === cx) return e;
      if (t[e + 1] === EMPTY) return -1;
    }
  }

  private findOrAdd(cx: number, cy: number): number {
    const found = this.find(cx, cy);
    if (found >= 0) return found;
    if (2 * ++this.cells > this.mask) this.regrow();
    let h = this.hash(cx, cy);
    while (this.table[4 * h + 1] !== EMPTY) h = (h + 1) & this.mask;
    this.table[4 * h] = cx; this.table[4 * h + 1] = cy; this.table[4 * h + 2] = 0;
    return 4 * h;
  }

  private regrow(): void {
    const old = this.table;
    this.table = new Int32Array(2 * old.length).fill(EMPTY);
    this.mask = this.table.length / 4 - 1;
    for (let e = 0; e < old.length; e += 4) {
      if (old[e + 1] === EMPTY) continue;
      let h = this.hash(old[e], old[e + 1]);
      while (this.table[4 * h + 1] !== EMPTY) h = (h + 1) & this.mask;
      this.table.set(old.subarray(e, e + 4), 4 * h);
    }
  }
}
