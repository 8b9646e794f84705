/**
 * A set of OSM ids that a later pass needs, as a sorted Float64Array with binary search:
 * 8 bytes an id and no size limit (a JS Set stops at 2^24 entries and costs ~5x the memory).
 * Ids are added in any order, then seal() sorts and de-duplicates.
 */
export class NeedSet {
  private buf = new Float64Array(1024);
  private n = 0;
  private sealed = false;

  add(id: number): void {
    if (this.sealed) throw new Error('NeedSet.add after seal()');
    if (this.n === this.buf.length) { const b = new Float64Array(this.n * 2); b.set(this.buf); this.buf = b; }
    this.buf[this.n++] = id;
  }

  seal(): void {
    const s = this.buf.subarray(0, this.n).sort();
    let m = 0;
    for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[i - 1]) s[m++] = s[i];
    this.buf = s.slice(0, m);
    this.n = m;
    this.sealed = true;
  }

  get size(): number { return this.n; }

  /** Position of id in sorted order, or -1. */
  indexOf(id: number): number {
    const b = this.buf;
    let lo = 0, hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = b[mid];
      if (v === id) return mid;
      if (v < id) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  has(id: number): boolean {
    return this.sealed && this.indexOf(id) >= 0;
  }
}
