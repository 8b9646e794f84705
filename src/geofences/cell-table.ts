/**
 * The cells of one grid tier: an open-addressing hash from cell (cx, cy) to a row of 32 bytes, one
 * cache line at most, holding all a query needs before it reads the cell's entries:
 *   ints  [cx, cy (EMPTY: free), first entry, end entry], then
 *   float the earliest expiry (ms) among the cell's live fences: while it is in the future, the
 *         cell's tests skip the fences' own expiry (a read per fence, scattered over memory).
 * A query finds its cell with one probe into memory in the common case (load factor ≤ 1/2).
 */

/** Ints a row. */
export const ROW = 8;
export const EMPTY = -1;
/** Row offsets (ints): first and end entry of the cell. */
export const FIRST = 2, END = 3;

export class CellTable {
  rows = new Int32Array(ROW * 1024).fill(EMPTY);
  /** The same memory as Float64s: the earliest expiry of row e is `minExp[(e >> 1) + 2]`. */
  minExp = new Float64Array(this.rows.buffer);
  private mask = 1023;
  count = 0;

  /** The row offset of cell (cx, cy), or -1. */
  find(cx: number, cy: number): number {
    const t = this.rows;
    for (let h = this.hash(cx, cy); ; h = (h + 1) & this.mask) {
      const e = ROW * h;
      if (t[e + 1] === cy && t[e] === cx) return e;
      if (t[e + 1] === EMPTY) return -1;
    }
  }

  /** The row of cell (cx, cy), added with FIRST = 0 if new. May move `rows`: read it after. */
  findOrAdd(cx: number, cy: number): number {
    const found = this.find(cx, cy);
    if (found >= 0) return found;
    if (2 * ++this.count > this.mask) this.regrow();
    let h = this.hash(cx, cy);
    while (this.rows[ROW * h + 1] !== EMPTY) h = (h + 1) & this.mask;
    const e = ROW * h;
    this.rows[e] = cx; this.rows[e + 1] = cy; this.rows[e + FIRST] = 0;
    return e;
  }

  private hash(cx: number, cy: number): number {
    return (Math.imul(cx, 0x9e3779b1) ^ Math.imul(cy, 0x85ebca77)) & this.mask;
  }

  private regrow(): void {
    const old = this.rows;
    this.rows = new Int32Array(2 * old.length).fill(EMPTY);
    this.minExp = new Float64Array(this.rows.buffer);
    this.mask = this.rows.length / ROW - 1;
    for (let e = 0; e < old.length; e += ROW) {
      if (old[e + 1] === EMPTY) continue;
      let h = this.hash(old[e], old[e + 1]);
      while (this.rows[ROW * h + 1] !== EMPTY) h = (h + 1) & this.mask;
      this.rows.set(old.subarray(e, e + ROW), ROW * h);
    }
  }
}
