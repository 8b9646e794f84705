/**
 * A static spatial hash over fence boxes: a uniform lat/long grid whose cell is about the size of a
 * typical fence, each cell listing the fences whose boxes overlap it. A point query reads one or a
 * few cells: O(1) instead of a tree walk. Fences spanning more than LARGE_CELLS cells go to a
 * coarser grid or a small Flatbush instead, so one 100 km fence does not fill thousands of cells.
 *
 * What one evaluation reads, in order: one row of the cell table (cell-table.ts), then the cell's
 * entries, contiguous in two parallel arrays:
 * - `qbox`, 4 bytes an entry, streamed: the fence's box clipped to the cell, quantised to 8 bits
 *   of the cell and rounded outward, the prefilter;
 * - `ent`, 16 bytes an entry (four to a cache line), read for the entries that pass: the slot and,
 *   for a circle, its centre relative to the cell's corner and its radius as Float32s.
 * A circle is tested from its entry alone, without its record (slots.ts) elsewhere in memory: at a
 * million fences that record was a cache miss per candidate and most of an evaluation's time.
 * The Float32s cost precision, so the test knows its error bound (`err`) and hands a fence whose
 * distance lands within it of a class boundary to the exact test on the record; the answer is the
 * exact test's in every case. A polygon's entry holds where its ring is, and its ring is tested
 * exactly. Before any of this, the rows of all the query's cells are looked up, then one load is
 * issued per cache line of their entries (fetch), so that those lines come from memory together.
 *
 * A fence is in every cell its box meets, but a query reports it from one only: the cell where
 * the overlap of the fence's box and the query's box begins (its south-west corner), known
 * from the quantised box, whose low code 0 means "continues into the previous cell". So no
 * per-query set of seen fences either.
 */
import Flatbush from 'flatbush';
import { CellTable, EMPTY, END, FIRST, ROW } from './cell-table.js';
import { searchFlatbush, type Candidates } from './flatbush-search.js';
import { M_PER_DEG } from '../geo/distance.js';
import { cosMean, EDGE_EPSILON_M, polygonSignedDistance } from './match.js';
import { A, B, C, EXPIRES, STRIDE, type Slots } from './slots.js';

const LARGE_CELLS = 16;
/** Fewer large fences than this go to a Flatbush, not a coarser grid. */
const SUB_MIN = 64;
const MIN_CELL = 0.0005, MAX_CELL = 0.05;
/**
 * Box codes within a cell: a low edge is 1 + ⌊f·SCALE⌋ (f: its fraction of the cell), or 0 when
 * the box continues into the previous cell; a high edge 1 + ⌈f·SCALE⌉, or Q when it continues.
 */
const SCALE = 253, Q = 0xff;
const F32_ULP = 2 ** -23;

/** The query being evaluated, and where its hits go (fence-index.ts). */
export interface Probe extends Candidates {
  readonly qLat: number; readonly qLon: number; readonly qAcc: number; readonly qNow: number;
  /** cos and sin of qLat; metres a degree of longitude there. */
  readonly qCos: number; readonly qSin: number; readonly qKx: number;
  hitSlots: Int32Array; hitClass: Int8Array; hitCount: number;
  roomForHits(k: number): void;
  /** The exact test of one slot on its record; adds a hit if it is one. */
  exact(slot: number): void;
}

/** The cell, degrees: about the height of a typical fence box (`scale` × the 75th percentile). */
export function cellSize(slots: Uint32Array, box: Float64Array, scale = 1): number {
  const h = new Float64Array(slots.length);
  for (let i = 0; i < slots.length; i++) h[i] = box[4 * slots[i] + 3] - box[4 * slots[i] + 1];
  h.sort();
  return Math.min(MAX_CELL, Math.max(MIN_CELL, scale * (h[Math.floor(h.length * 0.75)] || MIN_CELL)));
}

/** A longitude difference brought into [-180, 180], from any number of turns away. */
const turn = (d: number) => d - 360 * Math.round(d / 360);

export class GridTier {
  readonly inv: number;
  private readonly cols: number;
  private readonly cells = new CellTable();
  private readonly qbox: Uint32Array;
  /**
   * Per entry, 4 words: the slot (Int32), then for a circle its centre x, y (degrees from the
   * cell's corner) and radius in metres (Float32); for a polygon its first vertex in `coords`, an
   * unused word and −(vertex count) (Int32; a NaN as Float32). A killed entry's last word is
   * -Infinity: its distance is infinite.
   */
  private readonly entI: Int32Array;
  private readonly entF: Float32Array;
  /** Metres by which the Float32 distance may differ from the exact one (see the constructor). */
  private err = 0;
  /** The fences too large for this grid: a coarser grid, or a Flatbush once the grid is coarse. */
  private readonly sub: GridTier | null = null;
  private readonly large: Flatbush | null = null;
  private readonly largeSlots: Uint32Array;
  private pass = new Int32Array(256);
  /** The rows of the cells a query covers. */
  private found = new Int32Array(16);
  private polys = new Int32Array(16);
  /** Keeps the loads that fetch polygons' vertices early from being optimised away. */
  sink = 0;
  private stack = new Int32Array(256);

  /** `slots` (live ones) index into `fences`. */
  constructor(readonly slots: Uint32Array, private readonly fences: Slots, cell = cellSize(slots, fences.box)) {
    this.inv = 1 / cell;
    this.cols = Math.ceil(720 * this.inv) + 1;
    const large: number[] = [];
    let n = 0;
    for (const s of slots) {
      if (this.span(s) > LARGE_CELLS) large.push(s);
      else n += this.place(s, false);
    }
    const t = this.cells.rows, minExp = this.cells.minExp;
    for (let e = 0, run = 0; e < t.length; e += ROW) {
      if (t[e + 1] === EMPTY) continue;
      const count = t[e + FIRST];
      t[e + FIRST] = t[e + END] = run;
      minExp[(e >> 1) + 2] = Infinity;
      run += count;
    }
    this.qbox = new Uint32Array(n);
    this.entI = new Int32Array(4 * n);
    this.entF = new Float32Array(this.entI.buffer);
    let maxOff = 0, maxR = 0;
    for (const s of slots) {
      if (this.span(s) > LARGE_CELLS) continue;
      this.place(s, true);
      const o = s * STRIDE, b = fences.box;
      maxOff = Math.max(maxOff, b[4 * s + 2] - b[4 * s], b[4 * s + 3] - b[4 * s + 1]);
      if (fences.rec[o + C] > maxR) maxR = fences.rec[o + C];
    }
    // A centre lies within its box, which overlaps the cell: it is at most a box and a cell from
    // the corner. Rounding to Float32 moves each coordinate and the radius by at most 2^-24 of
    // itself; x and y each add that to the distance, and the cosine of the mean latitude, whose
    // slope is at most π/360 a degree, moves x by at most 180° × π/360 × that error.
    // Doubled, plus a micrometre for the rounding of the double arithmetic.
    const off = (maxOff + cell) * M_PER_DEG;
    this.err = F32_ULP * (off * (2 + Math.PI / 2) + maxR) + 1e-6;
    this.largeSlots = Uint32Array.from(large);
    if (large.length >= SUB_MIN && cell < MAX_CELL) {
      this.sub = new GridTier(this.largeSlots, fences, Math.max(2 * cell, cellSize(this.largeSlots, fences.box)));
    } else if (large.length) {
      this.large = new Flatbush(large.length);
      const b = fences.box;
      for (const s of large) this.large.add(b[4 * s], b[4 * s + 1], b[4 * s + 2], b[4 * s + 3]);
      this.large.finish();
    }
  }

  /**
   * Tests every fence whose box may meet the query box against the probe's query: hits go to the
   * probe, Flatbush's candidates to its candidate list.
   */
  search(x0: number, y0: number, x1: number, y1: number, v: Probe): void {
    const inv = this.inv, t = this.cells.rows;
    const fx0 = (x0 + 180) * inv, fx1 = (x1 + 180) * inv, fy0 = (y0 + 90) * inv, fy1 = (y1 + 90) * inv;
    const rx0 = Math.floor(fx0), rx1 = Math.floor(fx1), ry0 = Math.floor(fy0), ry1 = Math.floor(fy1);
    // The query's edges within its first and last cells, quantised as the fences' edges are.
    const qx0 = 1 + Math.floor((fx0 - rx0) * SCALE), qx1 = 1 + Math.ceil((fx1 - rx1) * SCALE);
    const qy0 = 1 + Math.floor((fy0 - ry0) * SCALE), qy1 = 1 + Math.ceil((fy1 - ry1) * SCALE);
    const cx0 = Math.max(0, rx0), cx1 = Math.min(this.cols - 1, rx1), cy0 = ry0, cy1 = ry1;
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) > this.cells.count) {
      // A query wider than the grid: walk the occupied cells instead of the covered ones.
      for (let e = 0; e < t.length; e += ROW) {
        const cx = t[e], cy = t[e + 1];
        if (cy === EMPTY || cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1) continue;
        this.scan(e, cx, cy, cx === rx0 ? qx0 : 0, cx === rx1 ? qx1 : Q, cy === ry0 ? qy0 : 0, cy === ry1 ? qy1 : Q,
          cx > cx0 ? 1 : 0, cy > cy0 ? 1 : 0, v);
      }
    } else {
      // In three passes, so that the cells' rows, then their entries, come from memory together
      // rather than one cell's round trips after another's.
      const cells = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
      if (this.found.length < cells) this.found = new Int32Array(2 * cells);
      const found = this.found;
      for (let cy = cy0, i = 0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) found[i++] = this.cells.find(cx, cy);
      for (let i = 0; i < cells; i++) if (found[i] >= 0) this.fetch(found[i]);
      for (let cy = cy0, i = 0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const e = found[i++];
          if (e >= 0) {
            this.scan(e, cx, cy, cx === rx0 ? qx0 : 0, cx === rx1 ? qx1 : Q, cy === ry0 ? qy0 : 0, cy === ry1 ? qy1 : Q,
              cx > cx0 ? 1 : 0, cy > cy0 ? 1 : 0, v);
          }
        }
      }
    }
    this.sub?.search(x0, y0, x1, y1, v);
    if (this.large) searchFlatbush(this.large, this.largeSlots, x0, y0, x1, y1, v, this);
  }

  /**
   * Marks a killed slot's entries so that no query tests it again, and raises its cells' earliest
   * expiry past it. `expires` is the slot's expiry before the kill.
   */
  kill(s: number, expires: number): void {
    if (this.span(s) > LARGE_CELLS) { this.sub?.kill(s, expires); return; } // Flatbush: the exact test reads the record
    const b = this.fences.box, inv = this.inv, I = this.entI, F = this.entF, t = this.cells.rows;
    const rx0 = Math.floor((b[4 * s] + 180) * inv), rx1 = Math.floor((b[4 * s + 2] + 180) * inv);
    const ry0 = Math.floor((b[4 * s + 1] + 90) * inv), ry1 = Math.floor((b[4 * s + 3] + 90) * inv);
    for (let cy = ry0; cy <= ry1; cy++) {
      for (let cx = rx0; cx <= rx1; cx++) {
        const e = this.cells.find(cx, cy);
        if (e < 0) continue;
        for (let k = t[e + FIRST]; k < t[e + END]; k++) if (I[4 * k] === s) F[4 * k + 3] = -Infinity;
        const at = (e >> 1) + 2, minExp = this.cells.minExp;
        if (expires !== minExp[at] || expires === Infinity) continue;
        let m = Infinity;
        for (let k = t[e + FIRST]; k < t[e + END]; k++) {
          if (F[4 * k + 3] !== -Infinity) m = Math.min(m, this.fences.rec[I[4 * k] * STRIDE + EXPIRES]);
        }
        minExp[at] = m;
      }
    }
  }

  /** Flatbush's stack, grown on demand and kept between queries. */
  stackFor(n: number): Int32Array {
    if (n > this.stack.length) this.stack = new Int32Array(2 * n);
    return this.stack;
  }

  /**
   * One load per cache line of a cell's boxes and entries, whose results nothing waits for: the
   * lines then come from memory together, not each a round trip after the one before.
   */
  private fetch(e: number): void {
    const t = this.cells.rows, qbox = this.qbox, I = this.entI;
    const k0 = t[e + FIRST], end = t[e + END];
    let touch = 0;
    for (let k = k0; k < end; k += 16) touch |= qbox[k];
    for (let k = 4 * k0; k < 4 * end; k += 16) touch |= I[k];
    this.sink = touch;
  }

  /**
   * One cell: the prefilter over its boxes, then the test of the entries that pass. `needX` /
   * `needY` (1 past the query's first column / row) drop the fences reported from an earlier cell.
   * The prefilter has no branches: whether an entry passes is a coin toss, and a mispredicted
   * branch per entry cost more than the rest of the scan. Every entry is written; passes advance `m`.
   */
  private scan(e: number, cx: number, cy: number, xlo: number, xhi: number, ylo: number, yhi: number,
    needX: number, needY: number, v: Probe): void {
    const t = this.cells.rows, qbox = this.qbox;
    const k0 = t[e + FIRST], end = t[e + END];
    if (this.pass.length < end - k0) this.pass = new Int32Array(2 * (end - k0));
    const pass = this.pass;
    let m = 0;
    for (let k = k0; k < end; k++) {
      const b = qbox[k], bx = b & Q, by = (b >>> 16) & Q;
      // Negative (sign bit set) as soon as one test fails.
      const fail = (xhi - bx) | (((b >>> 8) & Q) - xlo) | (yhi - by) | ((b >>> 24) - ylo) | (bx - needX) | (by - needY);
      pass[m] = k;
      m += ~fail >>> 31;
    }
    if (m > 0) this.test(e, cx, cy, pass, m, v);
  }

  /**
   * The circles of one cell from their entries: the distance as match.ts measures it (equirectangular
   * at the mean latitude), from Float32 offsets. Within `err` of a boundary of classify() (±accuracy,
   * ±EDGE_EPSILON_M) the exact test decides; elsewhere the class is the exact one's, since the two
   * distances are within `err` of each other. Hits are written without branches (inside or not is
   * unpredictable); the rare cases branch. Polygons are put aside and their first vertex loaded,
   * so that their rings arrive from memory while the circles are tested.
   */
  private test(e: number, cx: number, cy: number, pass: Int32Array, m: number, v: Probe): void {
    const I = this.entI, F = this.entF, coords = this.fences.coords;
    const lat = v.qLat, acc = v.qAcc, cos = v.qCos, sin = v.qSin, now = v.qNow;
    const qx = turn(v.qLon - (cx / this.inv - 180)), qy = lat - (cy / this.inv - 90);
    const expiring = this.cells.minExp[(e >> 1) + 2] <= now;
    const err = this.err, edge = EDGE_EPSILON_M + err;
    if (this.polys.length < m) this.polys = new Int32Array(2 * m);
    const polys = this.polys;
    let np = 0, touch = 0;
    v.roomForHits(m); // exact() adds at most one hit per entry too: the arrays do not move below
    const hs = v.hitSlots, hc = v.hitClass;
    let h = v.hitCount;
    for (let i = 0; i < m; i++) {
      const k = 4 * pass[i], s = I[k], r = F[k + 3];
      if (expiring && this.fences.rec[s * STRIDE + EXPIRES] <= now) continue;
      if (r !== r) { polys[np++] = k; touch += coords[2 * I[k + 1]]; continue; }
      const dx = F[k + 1] - qx, y = F[k + 2] - qy;
      if (dx > 180 || dx < -180) { v.hitCount = h; v.exact(s); h = v.hitCount; continue; }
      const x = dx * cosMean(cos, sin, lat, y);
      const d = Math.sqrt(x * x + y * y) * M_PER_DEG - r;
      if (Math.abs(d - acc) <= err || Math.abs(d + acc) <= err || Math.abs(d) <= edge) { v.hitCount = h; v.exact(s); h = v.hitCount; continue; }
      // Number(bool), not a ternary: V8 compiles `c ? 1 : 0` to a branch, mispredicted here about
      // one time in four (measured 7 ns against 1 an entry on random data).
      hs[h] = s;
      hc[h] = Number(d <= -acc); // INSIDE (1) or STRADDLE (0)
      h += Number(d <= acc);
    }
    v.hitCount = h;
    if (np > 0) { this.sink = touch; this.testPolygons(cx, polys, np, v); }
  }

  /**
   * Polygons, exactly (match.ts), from their entries: the ring's vertices and count, and the turn of
   * the point's longitude that the ring's own middle would pick (lonNear), here picked from the
   * cell's corner: the ring's box meets the cell and spans under a degree (LARGE_CELLS × MAX_CELL),
   * so the two agree unless the point is ~180° away, which goes to the record.
   */
  private testPolygons(cx: number, polys: Int32Array, np: number, v: Probe): void {
    const I = this.entI, coords = this.fences.coords, acc = v.qAcc;
    const ox = cx / this.inv - 180, lon = v.qLon - 360 * Math.round((v.qLon - ox) / 360);
    const near = acc > EDGE_EPSILON_M ? acc : EDGE_EPSILON_M;
    for (let i = 0; i < np; i++) {
      const k = polys[i];
      if (lon - ox > 179 || lon - ox < -179) { v.exact(I[k]); continue; }
      let d = polygonSignedDistance(v.qLat, lon, coords, I[k + 1], -I[k + 3], v.qKx, near);
      // classify(), inlined: the edge belongs to the fence.
      if (Math.abs(d) <= EDGE_EPSILON_M) d = 0;
      if (d > acc) continue;
      v.hitSlots[v.hitCount] = I[k];
      v.hitClass[v.hitCount++] = Number(d <= -acc);
    }
  }

  private span(s: number): number {
    const b = this.fences.box, inv = this.inv;
    return (Math.floor((b[4 * s + 2] + 180) * inv) - Math.floor((b[4 * s] + 180) * inv) + 1)
      * (Math.floor((b[4 * s + 3] + 90) * inv) - Math.floor((b[4 * s + 1] + 90) * inv) + 1);
  }

  /** Without `write`, counts the slot in each cell it meets; with it, writes its entries there. */
  private place(s: number, write: boolean): number {
    const b = this.fences.box, inv = this.inv;
    const fx0 = (b[4 * s] + 180) * inv, fx1 = (b[4 * s + 2] + 180) * inv, fy0 = (b[4 * s + 1] + 90) * inv, fy1 = (b[4 * s + 3] + 90) * inv;
    const rx0 = Math.floor(fx0), rx1 = Math.floor(fx1), ry0 = Math.floor(fy0), ry1 = Math.floor(fy1);
    const qx0 = 1 + Math.floor((fx0 - rx0) * SCALE), qx1 = 1 + Math.ceil((fx1 - rx1) * SCALE);
    const qy0 = 1 + Math.floor((fy0 - ry0) * SCALE), qy1 = 1 + Math.ceil((fy1 - ry1) * SCALE);
    for (let cy = ry0; cy <= ry1; cy++) {
      const y = ((cy === ry0 ? qy0 : 0) | (cy === ry1 ? qy1 : Q) << 8) << 16;
      for (let cx = rx0; cx <= rx1; cx++) {
        if (!write) { const e = this.cells.findOrAdd(cx, cy); this.cells.rows[e + FIRST]++; continue; }
        const e = this.cells.find(cx, cy), k = this.cells.rows[e + END]++;
        this.qbox[k] = ((cx === rx0 ? qx0 : 0) | (cx === rx1 ? qx1 : Q) << 8 | y) >>> 0;
        this.entry(k, s, e, cx, cy);
      }
    }
    return (rx1 - rx0 + 1) * (ry1 - ry0 + 1);
  }

  /** Entry k of cell (cx, cy) at row e: slot s, its circle relative to the cell's corner. */
  private entry(k: number, s: number, e: number, cx: number, cy: number): void {
    const rec = this.fences.rec, o = s * STRIDE, minExp = this.cells.minExp, at = (e >> 1) + 2;
    this.entI[4 * k] = s;
    if (rec[o + EXPIRES] < minExp[at]) minExp[at] = rec[o + EXPIRES];
    if (rec[o + C] >= 0) {
      this.entF[4 * k + 1] = turn(rec[o + B] - (cx / this.inv - 180));
      this.entF[4 * k + 2] = rec[o + A] - (cy / this.inv - 90);
      this.entF[4 * k + 3] = rec[o + C];
    } else {
      this.entI[4 * k + 1] = rec[o + A];
      this.entI[4 * k + 3] = rec[o + C];
    }
  }
}
