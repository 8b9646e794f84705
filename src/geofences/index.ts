/**
 * One app's geofences in memory for point queries. Three tiers, all tested exactly after the box:
 * - bulk: a static grid (GridTier: spatial hash + a Flatbush for the few large fences) over every
 *   fence known at the last full rebuild, which also compacts the slots;
 * - mid: a grid over fences added since, rebuilt each time the buffer fills;
 * - buffer: up to BUFFER_MAX fresh fences, scanned linearly.
 * An update or delete kills the old slot (a tombstone); the full rebuild runs when mid outgrows
 * 1/16 of the fences or tombstones outnumber the live ones, so an insert costs amortised
 * O(mid/BUFFER_MAX + log n) and a query searches two trees and at most 256 boxes.
 * Slot data live in typed arrays: a query allocates nothing.
 */
import { M_PER_DEG, type Shape } from './geometry.js';
import { GridTier, spatialOrder } from './grid.js';
import { circleSignedDistance, classify, lonNear, OUTSIDE, polygonSignedDistance, type Class } from './match.js';

const BUFFER_MAX = 256;
const MID_MIN = 4096;
const CIRCLE = 1, POLYGON = 2;
const RAD = Math.PI / 180;

export class FenceIndex {
  private n = 0;
  private kind = new Uint8Array(16);
  /** Circle: lat, lon, radius. Polygon: first vertex, vertex count, middle longitude. */
  private p = new Float64Array(48);
  private box = new Float64Array(64);
  private expires = new Float64Array(16);
  private seen = new Uint32Array(16);
  private ids: string[] = [];
  private readonly slotOf = new Map<string, number>();
  private coords = new Float64Array(64);
  private coordsLen = 0;
  private bulk: GridTier | null = null;
  private mid: GridTier | null = null;
  private buffer: number[] = [];
  private dead = 0;
  private wraps = false;

  private stamp = 0;
  private qLat = 0; private qLon = 0; private qAcc = 0; private qNow = 0;
  /** The hits of the last query: slots and their classes (INSIDE or STRADDLE). */
  hitSlots = new Int32Array(64);
  hitClass = new Int8Array(64);
  hitCount = 0;

  get size(): number { return this.slotOf.size; }
  /** Tier sizes, for metrics and the benchmark. */
  get tiers() { return { bulk: this.bulk?.slots.length ?? 0, mid: this.mid?.slots.length ?? 0, buffer: this.buffer.length, dead: this.dead }; }

  idOf(slot: number): string { return this.ids[slot]; }

  isLive(id: string, now: number): boolean {
    const s = this.slotOf.get(id);
    return s !== undefined && this.expires[s] > now;
  }

  /** Bulk loading: add every fence, then `rebuild()` once. */
  add(id: string, shape: Shape, expiresMs: number): number {
    const old = this.slotOf.get(id);
    if (old !== undefined) this.kill(old);
    return this.append(id, shape, expiresMs);
  }

  upsert(id: string, shape: Shape, expiresMs: number): void {
    this.buffer.push(this.add(id, shape, expiresMs));
    if (this.buffer.length > BUFFER_MAX) this.flushBuffer();
  }

  remove(id: string): boolean {
    const s = this.slotOf.get(id);
    if (s === undefined) return false;
    this.kill(s);
    if (this.dead > Math.max(MID_MIN, this.slotOf.size)) this.rebuild();
    return true;
  }

  /**
   * Fences whose edge is within `accuracy` metres of the point or that contain it, into hitSlots /
   * hitClass / hitCount. Expired fences are skipped: invisible from the second they expire.
   */
  query(lat: number, lon: number, accuracy: number, now: number): number {
    this.qLat = lat; this.qLon = lon; this.qAcc = accuracy; this.qNow = now;
    this.hitCount = 0;
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.stamp = 1; }
    const dLat = accuracy / M_PER_DEG;
    const cos = Math.cos(lat * RAD);
    const dLon = cos > 1e-6 ? Math.min(180, dLat / cos) : 180;
    const x0 = lon - dLon, x1 = lon + dLon, y0 = lat - dLat, y1 = lat + dLat;
    this.search(x0, y0, x1, y1);
    // Boxes live in [-180, 540): look again one turn east, and one west where the circle crosses 180.
    if (this.wraps || x0 < -180) this.search(x0 + 360, y0, x1 + 360, y1);
    if (x1 > 180) this.search(x0 - 360, y0, x1 - 360, y1);
    return this.hitCount;
  }

  /** Compacts the slots and puts every live fence into the static tree. */
  rebuild(): void {
    const live = this.slotOf.size;
    const old = { kind: this.kind, p: this.p, box: this.box, expires: this.expires, ids: this.ids, coords: this.coords };
    this.allocate(Math.max(16, Math.ceil(live * 1.25)));
    this.coords = new Float64Array(Math.max(64, this.coordsLen));
    this.n = 0; this.coordsLen = 0; this.dead = 0; this.wraps = false;
    this.slotOf.clear();
    for (const s of spatialOrder(old.kind, old.box)) this.copySlot(old, s, this.n++);
    this.bulk = live > 0 ? new GridTier(Uint32Array.from({ length: live }, (_, i) => i), this.box) : null;
    this.mid = null;
    this.buffer = [];
  }

  private search(x0: number, y0: number, x1: number, y1: number): void {
    this.bulk?.search(x0, y0, x1, y1, this);
    this.mid?.search(x0, y0, x1, y1, this);
    const b = this.box;
    for (const s of this.buffer) {
      if (b[4 * s] <= x1 && b[4 * s + 2] >= x0 && b[4 * s + 1] <= y1 && b[4 * s + 3] >= y0) this.test(s);
    }
  }

  /** The exact test of one slot against the current query; Visitor of the grid tiers. */
  test(s: number): void {
    if (this.seen[s] === this.stamp) return;
    this.seen[s] = this.stamp;
    const k = this.kind[s];
    if (k === 0 || this.expires[s] <= this.qNow) return;
    const p = this.p;
    const d = k === CIRCLE
      ? circleSignedDistance(this.qLat, this.qLon, p[3 * s], p[3 * s + 1], p[3 * s + 2])
      : polygonSignedDistance(this.qLat, lonNear(this.qLon, p[3 * s + 2]), this.coords, p[3 * s], p[3 * s + 1]);
    const c: Class = classify(d, this.qAcc);
    if (c !== OUTSIDE) {
      if (this.hitCount === this.hitSlots.length) this.growHits();
      this.hitSlots[this.hitCount] = s;
      this.hitClass[this.hitCount++] = c;
    }
  }

  private flushBuffer(): void {
    const pending = [...(this.mid?.slots ?? []), ...this.buffer].filter((s) => this.kind[s] !== 0);
    this.buffer = [];
    if (pending.length > Math.max(MID_MIN, this.slotOf.size / 16)) return this.rebuild();
    this.mid = pending.length ? new GridTier(Uint32Array.from(pending), this.box) : null;
  }

  private kill(s: number): void {
    this.kind[s] = 0;
    this.slotOf.delete(this.ids[s]);
    this.dead++;
  }

  private append(id: string, shape: Shape, expiresMs: number): number {
    if (this.n === this.kind.length) this.grow();
    const s = this.n++;
    this.ids[s] = id;
    this.slotOf.set(id, s);
    this.expires[s] = expiresMs;
    this.box.set(shape.bbox, 4 * s);
    if (shape.bbox[2] > 180) this.wraps = true;
    if (shape.kind === 'circle') {
      this.kind[s] = CIRCLE;
      this.p[3 * s] = shape.lat; this.p[3 * s + 1] = shape.lon; this.p[3 * s + 2] = shape.radius;
    } else {
      this.kind[s] = POLYGON;
      if (this.coordsLen + shape.coords.length > this.coords.length) {
        const next = new Float64Array(Math.max(2 * this.coords.length, this.coordsLen + shape.coords.length));
        next.set(this.coords.subarray(0, this.coordsLen));
        this.coords = next;
      }
      this.coords.set(shape.coords, this.coordsLen);
      this.p[3 * s] = this.coordsLen / 2; this.p[3 * s + 1] = shape.coords.length / 2;
      this.p[3 * s + 2] = (shape.bbox[0] + shape.bbox[2]) / 2;
      this.coordsLen += shape.coords.length;
    }
    return s;
  }

  private copySlot(o: { kind: Uint8Array; p: Float64Array; box: Float64Array; expires: Float64Array; ids: string[]; coords: Float64Array }, s: number, t: number): void {
    this.kind[t] = o.kind[s];
    this.expires[t] = o.expires[s];
    this.box.set(o.box.subarray(4 * s, 4 * s + 4), 4 * t);
    this.p.set(o.p.subarray(3 * s, 3 * s + 3), 3 * t);
    if (this.box[4 * t + 2] > 180) this.wraps = true;
    if (o.kind[s] === POLYGON) {
      const from = 2 * o.p[3 * s], len = 2 * o.p[3 * s + 1];
      this.coords.set(o.coords.subarray(from, from + len), this.coordsLen);
      this.p[3 * t] = this.coordsLen / 2;
      this.coordsLen += len;
    }
    this.ids[t] = o.ids[s];
    this.slotOf.set(o.ids[s], t);
  }

  private allocate(cap: number): void {
    this.kind = new Uint8Array(cap);
    this.p = new Float64Array(3 * cap);
    this.box = new Float64Array(4 * cap);
    this.expires = new Float64Array(cap);
    this.seen = new Uint32Array(cap);
    this.ids = new Array<string>(cap);
  }

  private grow(): void {
    const o = { kind: this.kind, p: this.p, box: this.box, expires: this.expires, seen: this.seen, ids: this.ids };
    this.allocate(2 * o.kind.length);
    this.kind.set(o.kind); this.p.set(o.p); this.box.set(o.box); this.expires.set(o.expires); this.seen.set(o.seen);
    for (let i = 0; i < o.ids.length; i++) this.ids[i] = o.ids[i];
  }

  private growHits(): void {
    const slots = new Int32Array(2 * this.hitSlots.length), cls = new Int8Array(2 * this.hitClass.length);
    slots.set(this.hitSlots); cls.set(this.hitClass);
    this.hitSlots = slots; this.hitClass = cls;
  }
}

