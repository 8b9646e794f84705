/**
 * One app's geofences in memory for point queries. Three tiers, all tested exactly after the box:
 * - bulk: a static grid (GridTier: spatial hash + a Flatbush for the few large fences) over every
 *   fence known at the last full rebuild, which also compacts the slots into spatial order;
 * - mid: a grid over fences added since, rebuilt each time the buffer fills;
 * - buffer: up to BUFFER_MAX fresh fences, scanned linearly.
 * An update or delete kills the old slot (a tombstone); the full rebuild runs when mid outgrows
 * 1/16 of the fences or tombstones outnumber the live ones, so an insert costs amortised
 * O(mid/BUFFER_MAX + log n) and a query searches two grids and at most 256 boxes.
 * Slot data live in typed arrays (slots.ts): a query allocates nothing.
 */
import { M_PER_DEG, wrapDelta, type Shape } from './geometry.js';
import { cellSize, GridTier } from './grid.js';
import { EDGE_EPSILON_M, INSIDE, lonNear, polygonSignedDistance, STRADDLE } from './match.js';
import { A, B, C, EXPIRES, Slots, spatialOrder, STRIDE } from './slots.js';

const BUFFER_MAX = 256;
const MID_MIN = 4096;
const RAD = Math.PI / 180, HALF_RAD = Math.PI / 360;
const INV6 = 1 / 6, INV12 = 1 / 12, INV20 = 1 / 20, INV30 = 1 / 30, INV42 = 1 / 42;

export class FenceIndex {
  private readonly s = new Slots();
  private bulk: GridTier | null = null;
  private mid: GridTier | null = null;
  private buffer: number[] = [];

  private qLat = 0; private qLon = 0; private qAcc = 0; private qNow = 0;
  private qCos = 1; private qSin = 0; private qKx = M_PER_DEG;
  /** Per slot, the last query that tested it: only read when a fence may come twice (see dedupe). */
  private seen = new Uint32Array(0);
  private stamp = 0;
  /** The hits of the last query: slots and their classes (INSIDE or STRADDLE). */
  hitSlots = new Int32Array(64);
  hitClass = new Int8Array(64);
  hitCount = 0;
  /** Candidates of the current query, from the tiers' prefilters (grid.ts Candidates). */
  buf = new Int32Array(256);
  n = 0;
  /** A tier read more than one cell, so a fence may be a candidate twice. */
  multi = false;

  get size(): number { return this.s.live; }
  /** Tier sizes, for metrics and the benchmark. */
  get tiers() { return { bulk: this.bulk?.slots.length ?? 0, mid: this.mid?.slots.length ?? 0, buffer: this.buffer.length, dead: this.s.dead }; }

  idOf(slot: number): string { return this.s.ids[slot]; }

  isLive(id: string, now: number): boolean {
    const s = this.s.slotOf.get(id);
    return s !== undefined && this.s.rec[s * STRIDE + EXPIRES] > now;
  }

  /** Bulk loading: add every fence, then `rebuild()` once. */
  add(id: string, shape: Shape, expiresMs: number): number {
    const old = this.s.slotOf.get(id);
    if (old !== undefined) this.s.kill(old);
    return this.s.append(id, shape, expiresMs);
  }

  upsert(id: string, shape: Shape, expiresMs: number): void {
    this.buffer.push(this.add(id, shape, expiresMs));
    if (this.buffer.length > BUFFER_MAX) this.flushBuffer();
  }

  remove(id: string): boolean {
    const s = this.s.slotOf.get(id);
    if (s === undefined) return false;
    this.s.kill(s);
    if (this.s.dead > Math.max(MID_MIN, this.s.live)) this.rebuild();
    return true;
  }

  /**
   * Fences whose edge is within `accuracy` metres of the point or that contain it, into hitSlots /
   * hitClass / hitCount. Expired fences are skipped: invisible from the second they expire.
   */
  query(lat: number, lon: number, accuracy: number, now: number): number {
    const cos = Math.cos(lat * RAD);
    this.qLat = lat; this.qLon = lon; this.qAcc = accuracy; this.qNow = now;
    this.qCos = cos; this.qSin = Math.sin(lat * RAD); this.qKx = cos * M_PER_DEG;
    this.hitCount = 0;
    this.n = 0;
    this.multi = false;
    const dLat = accuracy / M_PER_DEG;
    const dLon = cos > 1e-6 ? Math.min(180, dLat / cos) : 180;
    const x0 = lon - dLon, x1 = lon + dLon, y0 = lat - dLat, y1 = lat + dLat;
    this.search(x0, y0, x1, y1);
    // Boxes live in [-180, 540): look again one turn east where a box reaches, and one west where
    // the accuracy circle crosses 180. A fence met in two turns comes twice.
    if (x0 + 360 <= this.s.east) { this.multi = true; this.search(x0 + 360, y0, x1 + 360, y1); }
    if (x1 > 180) { this.multi = true; this.search(x0 - 360, y0, x1 - 360, y1); }
    this.testCandidates();
    return this.hitCount;
  }

  /** Compacts the slots into spatial order and puts every live fence into the static grid. */
  rebuild(): void {
    const live = this.s.liveSlots();
    const cell = cellSize(live, this.s.box);
    this.s.compact(spatialOrder(this.s, cell));
    const n = this.s.n, all = new Uint32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    this.bulk = n > 0 ? new GridTier(all, this.s.box, cell) : null;
    this.mid = null;
    this.buffer = [];
  }

  private search(x0: number, y0: number, x1: number, y1: number): void {
    this.bulk?.search(x0, y0, x1, y1, this);
    this.mid?.search(x0, y0, x1, y1, this);
    const b = this.s.box;
    for (const s of this.buffer) {
      if (b[4 * s] <= x1 && b[4 * s + 2] >= x0 && b[4 * s + 1] <= y1 && b[4 * s + 3] >= y0) this.reserve(1)[this.n++] = s;
    }
  }

  /** Room for `k` more candidates. */
  reserve(k: number): Int32Array {
    if (this.n + k > this.buf.length) {
      const next = new Int32Array(2 * (this.n + k));
      next.set(this.buf.subarray(0, this.n));
      this.buf = next;
    }
    return this.buf;
  }

  /**
   * The candidates' records are scattered over memory. Loading one word of each first, in a loop
   * whose loads depend on nothing, lets the CPU fetch them all at once (JavaScript has no prefetch);
   * the exact tests after it, full of branches that would serialise the misses, then hit the cache.
   */
  private testCandidates(): void {
    const r = this.s.rec, cand = this.buf, n = this.n;
    let touch = 0;
    for (let i = 0; i < n; i++) touch += r[cand[i] * STRIDE + A];
    if (touch !== touch) return; // never (A is a finite latitude or vertex number); keeps the loop
    if (!this.multi) {
      for (let i = 0; i < n; i++) this.test(cand[i]);
      return;
    }
    if (this.seen.length < this.s.n) this.seen = new Uint32Array(this.s.rec.length / STRIDE);
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.stamp = 1; }
    for (let i = 0; i < n; i++) {
      const s = cand[i];
      if (this.seen[s] === this.stamp) continue;
      this.seen[s] = this.stamp;
      this.test(s);
    }
  }

  /**
   * The exact test of one slot against the current query. The same
   * arithmetic as match.ts (circleSignedDistance, polygonSignedDistance, classify), with the
   * per-query trigonometry hoisted out of the loop.
   */
  private test(s: number): void {
    const r = this.s.rec, o = s * STRIDE;
    if (r[o + EXPIRES] <= this.qNow) return; // expired, or killed (-Infinity)
    let d: number;
    if (r[o + C] >= 0) {
      const y = r[o + A] - this.qLat;
      const x = wrapDelta(r[o + B] - this.qLon) * cosMean(this.qCos, this.qSin, this.qLat, y);
      d = Math.sqrt(x * x + y * y) * M_PER_DEG - r[o + C];
    } else {
      const near = this.qAcc > EDGE_EPSILON_M ? this.qAcc : EDGE_EPSILON_M;
      d = polygonSignedDistance(this.qLat, lonNear(this.qLon, r[o + B]), this.s.coords, r[o + A], -r[o + C], this.qKx, near);
    }
    // classify(), inlined: the edge belongs to the fence.
    if (Math.abs(d) <= EDGE_EPSILON_M) d = 0;
    const acc = this.qAcc;
    if (d > acc) return;
    if (this.hitCount === this.hitSlots.length) this.growHits();
    this.hitSlots[this.hitCount] = s;
    this.hitClass[this.hitCount++] = d <= -acc ? INSIDE : STRADDLE;
  }

  private flushBuffer(): void {
    const pending = [...(this.mid?.slots ?? []), ...this.buffer].filter((s) => !this.s.isKilled(s));
    this.buffer = [];
    if (pending.length > Math.max(MID_MIN, this.s.live / 16)) return this.rebuild();
    this.mid = pending.length ? new GridTier(Uint32Array.from(pending), this.s.box) : null;
  }

  private growHits(): void {
    const slots = new Int32Array(2 * this.hitSlots.length), cls = new Int8Array(2 * this.hitClass.length);
    slots.set(this.hitSlots); cls.set(this.hitClass);
    this.hitSlots = slots; this.hitClass = cls;
  }
}

/**
 * cos((lat + lat2) / 2), as distanceM takes it, from cos and sin of lat and dLat = lat2 − lat:
 * cos(lat + δ) with δ = dLat/2 by the angle sum and Taylor series of δ, exact to rounding while
 * |δ| < 0.01 rad (the next term is below 1e-20), so one cosine per query instead of per fence.
 */
export function cosMean(cos: number, sin: number, lat: number, dLat: number): number {
  const d = dLat * HALF_RAD;
  if (d > 0.01 || d < -0.01) return Math.cos((lat + lat + dLat) * HALF_RAD);
  // Reciprocals, not divisions: six divisions in a row cost more than the rest of the test.
  const d2 = d * d;
  return cos * (1 - d2 * 0.5 * (1 - d2 * INV12 * (1 - d2 * INV30))) - sin * d * (1 - d2 * INV6 * (1 - d2 * INV20 * (1 - d2 * INV42)));
}
