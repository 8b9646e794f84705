/**
 * One app's geofences in memory for point queries. Three tiers, all tested exactly after the box:
 * - bulk: a static grid (GridTier: spatial hash + a Flatbush for the few large fences) over every
 *   fence known at the last full rebuild, which also compacts the slots into spatial order;
 * - mid: a grid over fences added since, rebuilt each time the buffer fills;
 * - buffer: up to BUFFER_MAX fresh fences, scanned linearly.
 * An update or delete kills the old slot (a tombstone, also marked in its grid's entries); the full
 * rebuild runs when mid outgrows 1/16 of the fences or tombstones outnumber the live ones, so an
 * insert costs amortised O(mid/BUFFER_MAX + log n) and a query searches two grids and at most 256
 * boxes. The grids test circles themselves from their cell entries (grid.ts); polygons, near-
 * boundary cases and the Flatbush's and buffer's candidates get the exact test here, on the record.
 * Slot data live in typed arrays (slots.ts): a query allocates nothing.
 */
import { wrapDelta, type Shape } from './geometry.js';
import { M_PER_DEG } from '../geo/distance.js';
import { cellSize, GridTier, type Probe } from './grid.js';
import { cosMean, EDGE_EPSILON_M, INSIDE, lonNear, polygonSignedDistance, STRADDLE } from './match.js';
import { A, B, C, EXPIRES, Slots, spatialOrder, STRIDE } from './slots.js';

export { cosMean } from './match.js';

const BUFFER_MAX = 256;
const MID_MIN = 4096;
const RAD = Math.PI / 180;

export class FenceIndex implements Probe {
  private readonly s = new Slots();
  private bulk: GridTier | null = null;
  private mid: GridTier | null = null;
  private buffer: number[] = [];
  /** Slots below `bulkEnd` are in the bulk grid; from there to `midEnd`, in mid; then the buffer. */
  private bulkEnd = 0;
  private midEnd = 0;

  /** The current query (Probe). */
  qLat = 0; qLon = 0; qAcc = 0; qNow = 0; qCos = 1; qSin = 0; qKx = M_PER_DEG;
  /** Per slot, the last query that reported it: only read when a query looks around the antimeridian. */
  private seen = new Uint32Array(0);
  private stamp = 0;
  /** The hits of the last query: slots and their classes (INSIDE or STRADDLE). */
  hitSlots = new Int32Array(64);
  hitClass = new Int8Array(64);
  hitCount = 0;
  /** Candidates of the current query for the exact test: the Flatbush's and the buffer's. */
  buf = new Int32Array(256);
  n = 0;

  /**
   * Bumped by every rebuild, which renumbers the slots. Between two, a slot names one version of
   * one fence (an upsert takes a new slot), so what is known of a slot stays true (near-cache.ts).
   */
  generation = 0;

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
    if (old !== undefined) this.kill(old);
    return this.s.append(id, shape, expiresMs);
  }

  upsert(id: string, shape: Shape, expiresMs: number): void {
    this.buffer.push(this.add(id, shape, expiresMs));
    if (this.buffer.length > BUFFER_MAX) this.flushBuffer();
  }

  remove(id: string): boolean {
    const s = this.s.slotOf.get(id);
    if (s === undefined) return false;
    this.kill(s);
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
    const dLat = accuracy / M_PER_DEG;
    const dLon = cos > 1e-6 ? Math.min(180, dLat / cos) : 180;
    const x0 = lon - dLon, x1 = lon + dLon, y0 = lat - dLat, y1 = lat + dLat;
    this.search(x0, y0, x1, y1);
    // Boxes live in [-180, 540): look again one turn east where a box reaches, and one west where
    // the accuracy circle crosses 180. A fence met in two turns comes twice.
    let turns = false;
    if (x0 + 360 <= this.s.east) { turns = true; this.search(x0 + 360, y0, x1 + 360, y1); }
    if (x1 > 180) { turns = true; this.search(x0 - 360, y0, x1 - 360, y1); }
    for (let i = 0; i < this.n; i++) this.exact(this.buf[i]);
    if (turns) this.dedupeHits();
    return this.hitCount;
  }

  /** Compacts the slots into spatial order and puts every live fence into the static grid. */
  rebuild(): void {
    const live = this.s.liveSlots();
    const cell = cellSize(live, this.s.box);
    this.s.compact(spatialOrder(this.s, cell));
    this.generation++;
    const n = this.s.n, all = new Uint32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    this.bulk = n > 0 ? new GridTier(all, this.s, cell) : null;
    this.mid = null;
    this.buffer = [];
    this.bulkEnd = this.midEnd = n;
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

  /** Room for `k` more hits. */
  roomForHits(k: number): void {
    if (this.hitCount + k <= this.hitSlots.length) return;
    const cap = 2 * (this.hitCount + k);
    const slots = new Int32Array(cap), cls = new Int8Array(cap);
    slots.set(this.hitSlots.subarray(0, this.hitCount)); cls.set(this.hitClass.subarray(0, this.hitCount));
    this.hitSlots = slots; this.hitClass = cls;
  }

  /**
   * The exact test of one slot against the current query. The same arithmetic as match.ts
   * (circleSignedDistance, polygonSignedDistance, classify), with the per-query trigonometry
   * hoisted out of the loop.
   */
  exact(s: number): void {
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
    this.roomForHits(1);
    this.hitSlots[this.hitCount] = s;
    this.hitClass[this.hitCount++] = d <= -acc ? INSIDE : STRADDLE;
  }

  /** Metres from the last query's point to slot `s`'s shape, negative inside: exact() without its shortcuts (a near search's distance). */
  distanceOf(s: number): number {
    const r = this.s.rec, o = s * STRIDE;
    if (r[o + C] >= 0) {
      const y = r[o + A] - this.qLat;
      const x = wrapDelta(r[o + B] - this.qLon) * cosMean(this.qCos, this.qSin, this.qLat, y);
      return Math.sqrt(x * x + y * y) * M_PER_DEG - r[o + C];
    }
    return polygonSignedDistance(this.qLat, lonNear(this.qLon, r[o + B]), this.s.coords, r[o + A], -r[o + C], this.qKx);
  }

  private search(x0: number, y0: number, x1: number, y1: number): void {
    this.bulk?.search(x0, y0, x1, y1, this);
    this.mid?.search(x0, y0, x1, y1, this);
    const b = this.s.box;
    for (const s of this.buffer) {
      if (b[4 * s] <= x1 && b[4 * s + 2] >= x0 && b[4 * s + 1] <= y1 && b[4 * s + 3] >= y0) this.reserve(1)[this.n++] = s;
    }
  }

  /** A fence met in two turns of longitude is reported twice: keep the first. */
  private dedupeHits(): void {
    if (this.seen.length < this.s.n) this.seen = new Uint32Array(this.s.rec.length / STRIDE);
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.stamp = 1; }
    let w = 0;
    for (let i = 0; i < this.hitCount; i++) {
      const s = this.hitSlots[i];
      if (this.seen[s] === this.stamp) continue;
      this.seen[s] = this.stamp;
      this.hitSlots[w] = s;
      this.hitClass[w++] = this.hitClass[i];
    }
    this.hitCount = w;
  }

  /** Kills a slot, and its entries in the grid that holds it. */
  private kill(s: number): void {
    const expires = this.s.rec[s * STRIDE + EXPIRES];
    if (s < this.bulkEnd) this.bulk?.kill(s, expires);
    else if (s < this.midEnd) this.mid?.kill(s, expires);
    this.s.kill(s);
  }

  private flushBuffer(): void {
    const pending = [...(this.mid?.slots ?? []), ...this.buffer].filter((s) => !this.s.isKilled(s));
    this.buffer = [];
    if (pending.length > Math.max(MID_MIN, this.s.live / 16)) return this.rebuild();
    this.mid = pending.length ? new GridTier(Uint32Array.from(pending), this.s) : null;
    this.midEnd = this.s.n;
  }
}
