/**
 * The fences of one FenceIndex in flat typed arrays, one slot each. Everything the exact test of a
 * slot reads sits in one 32-byte record (two to a cache line: the test of a candidate is one memory
 * access, not one per array), and the records are laid out in the spatial order of the last
 * compaction, so the candidates of one query share a few lines and pages.
 *
 * Record (STRIDE Float64s): expiry ms (-Infinity once killed), then
 * - circle: lat, lon, radius m (≥ 0);
 * - polygon: first vertex in `coords`, middle longitude of the ring, −(vertex count) (< 0).
 * The boxes are kept beside, for building grids and scanning the buffer.
 */
import type { Shape } from './geometry.js';

export const STRIDE = 4;
export const EXPIRES = 0, A = 1, B = 2, C = 3;

export class Slots {
  n = 0;
  dead = 0;
  /** The easternmost box edge: past 180° some box wraps, and queries near -180° look one turn east. */
  east = -Infinity;
  rec = new Float64Array(16 * STRIDE);
  box = new Float64Array(64);
  coords = new Float64Array(64);
  coordsLen = 0;
  ids: string[] = [];
  readonly slotOf = new Map<string, number>();

  get live(): number { return this.slotOf.size; }

  append(id: string, shape: Shape, expiresMs: number): number {
    if (this.n * STRIDE === this.rec.length) this.resize(2 * this.n, this.coords.length);
    const s = this.n++, o = s * STRIDE, r = this.rec;
    this.ids[s] = id;
    this.slotOf.set(id, s);
    r[o + EXPIRES] = expiresMs;
    this.box.set(shape.bbox, 4 * s);
    if (shape.bbox[2] > this.east) this.east = shape.bbox[2];
    if (shape.kind === 'circle') {
      r[o + A] = shape.lat; r[o + B] = shape.lon; r[o + C] = shape.radius;
    } else {
      const len = shape.coords.length;
      if (this.coordsLen + len > this.coords.length) this.growCoords(Math.max(2 * this.coords.length, this.coordsLen + len));
      this.coords.set(shape.coords, this.coordsLen);
      r[o + A] = this.coordsLen / 2; r[o + B] = (shape.bbox[0] + shape.bbox[2]) / 2; r[o + C] = -len / 2;
      this.coordsLen += len;
    }
    return s;
  }

  isKilled(s: number): boolean { return this.rec[s * STRIDE + EXPIRES] === -Infinity; }

  kill(s: number): void {
    this.rec[s * STRIDE + EXPIRES] = -Infinity;
    this.slotOf.delete(this.ids[s]);
    this.dead++;
  }

  /** The live slots, in slot order. */
  liveSlots(): Uint32Array {
    const out = new Uint32Array(this.live);
    for (let s = 0, i = 0; s < this.n; s++) if (!this.isKilled(s)) out[i++] = s;
    return out;
  }

  /** Keeps only the slots of `order` (live ones), renumbered 0… in that order; drops dead space. */
  compact(order: Uint32Array): void {
    const rec = this.rec, box = this.box, coords = this.coords, ids = this.ids;
    const cap = Math.max(16, Math.ceil(order.length * 1.25));
    this.rec = new Float64Array(cap * STRIDE);
    this.box = new Float64Array(cap * 4);
    this.coords = new Float64Array(Math.max(64, this.coordsLen));
    this.ids = new Array<string>(cap);
    this.n = 0; this.coordsLen = 0; this.dead = 0; this.east = -Infinity;
    this.slotOf.clear();
    for (let i = 0; i < order.length; i++) {
      const s = order[i], t = this.n++;
      const from = s * STRIDE, to = t * STRIDE;
      for (let k = 0; k < STRIDE; k++) this.rec[to + k] = rec[from + k];
      for (let k = 0; k < 4; k++) this.box[4 * t + k] = box[4 * s + k];
      if (this.box[4 * t + 2] > this.east) this.east = this.box[4 * t + 2];
      if (rec[from + C] < 0) {
        const start = 2 * rec[from + A], len = -2 * rec[from + C];
        for (let k = 0; k < len; k++) this.coords[this.coordsLen + k] = coords[start + k];
        this.rec[to + A] = this.coordsLen / 2;
        this.coordsLen += len;
      }
      this.ids[t] = ids[s];
      this.slotOf.set(ids[s], t);
    }
  }

  private resize(cap: number, coordsCap: number): void {
    const rec = new Float64Array(cap * STRIDE), box = new Float64Array(cap * 4);
    rec.set(this.rec); box.set(this.box);
    this.rec = rec; this.box = box;
    if (coordsCap !== this.coords.length) this.growCoords(coordsCap);
  }

  private growCoords(cap: number): void {
    const next = new Float64Array(cap);
    next.set(this.coords.subarray(0, this.coordsLen));
    this.coords = next;
  }
}

/**
 * Live slots in Z-order (Morton) of their box centres' `cell`-degree grid cells: fences that
 * share a cell are contiguous and a cell's neighbours are mostly near, so the candidates of one
 * query sit on a few pages. Without it every candidate is a cache and TLB miss, which at a
 * million fences cost more than the whole geometric test.
 */
export function spatialOrder(slots: Slots, cell: number): Uint32Array {
  const live = slots.liveSlots(), box = slots.box, n = live.length;
  const cx = new Uint32Array(n), cy = new Uint32Array(n);
  let minX = Infinity, minY = Infinity, maxX = 0, maxY = 0;
  for (let i = 0; i < n; i++) {
    const o = 4 * live[i];
    cx[i] = Math.floor(((box[o] + box[o + 2]) / 2 + 180) / cell);
    cy[i] = Math.floor(((box[o + 1] + box[o + 3]) / 2 + 90) / cell);
    minX = Math.min(minX, cx[i]); maxX = Math.max(maxX, cx[i]); minY = Math.min(minY, cy[i]); maxY = Math.max(maxY, cy[i]);
  }
  let shift = 0;
  while (Math.max(maxX - minX, maxY - minY) >>> shift >= 1 << 20) shift++;
  // A 40-bit code as 16 + 16 + 8 bits, sorted least significant digit first (stable radix sort).
  const lo = new Uint32Array(n), hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const x = (cx[i] - minX) >>> shift, y = (cy[i] - minY) >>> shift;
    lo[i] = (spread(x & 0xffff) | (spread(y & 0xffff) << 1)) >>> 0;
    hi[i] = spread(x >>> 16) | (spread(y >>> 16) << 1);
  }
  let perm = new Uint32Array(n), tmp = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  const count = new Uint32Array(1 << 16);
  for (const [key, shiftBits] of [[lo, 0], [lo, 16], [hi, 0]] as const) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(key[i] >>> shiftBits) & 0xffff]++;
    for (let d = 0, run = 0; d < count.length; d++) { const c = count[d]; count[d] = run; run += c; }
    for (let i = 0; i < n; i++) { const p = perm[i]; tmp[count[(key[p] >>> shiftBits) & 0xffff]++] = p; }
    [perm, tmp] = [tmp, perm];
  }
  for (let i = 0; i < n; i++) perm[i] = live[perm[i]];
  return perm;
}

/** The 16 low bits of v spread to the even bits of 32. */
function spread(v: number): number {
  let x = v & 0xffff;
  x = (x | (x << 8)) & 0x00ff00ff;
  x = (x | (x << 4)) & 0x0f0f0f0f;
  x = (x | (x << 2)) & 0x33333333;
  return (x | (x << 1)) & 0x55555555;
}
