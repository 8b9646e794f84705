/**
 * The order in which points are packed into the R-tree. Flatbush's own finish() sorts by a
 * 16-bit-per-axis Hilbert value over the whole bbox: on a world-wide store that is a ~600 m
 * cell, and in a dense city hundreds of venues share a cell and end up scrambled across many
 * leaves, so a 100 m query scans them all. Here a second, within-cell Hilbert key breaks the
 * ties, sorted with a stable LSD radix sort (O(n), no comparator).
 */

/** Hilbert index of (x, y) in [0, 65535]² (the algorithm Flatbush uses, ISC, after rawrunprotected). */
export function hilbert(x: number, y: number): number {
  let a = x ^ y;
  let b = 0xffff ^ a;
  let c = 0xffff ^ (x | y);
  let d = x & (y ^ 0xffff);
  let A = a | (b >> 1);
  let B = (a >> 1) ^ a;
  let C = c ^ ((c >> 1) ^ (b & (d >> 1)));
  let D = d ^ ((a & (c >> 1)) ^ (d >> 1));
  a = (A & (A >> 2)) ^ (B & (B >> 2));
  b = (A & (B >> 2)) ^ (B & ((A ^ B) >> 2));
  c = C ^ ((A & (C >> 2)) ^ (B & (D >> 2)));
  d = D ^ ((B & (C >> 2)) ^ ((A ^ B) & (D >> 2)));
  A = (a & (a >> 4)) ^ (b & (b >> 4));
  B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4));
  C = c ^ ((a & (c >> 4)) ^ (b & (d >> 4)));
  D = d ^ ((b & (c >> 4)) ^ ((a ^ b) & (d >> 4)));
  c = C ^ ((A & (C >> 8)) ^ (B & (D >> 8)));
  d = D ^ ((B & (C >> 8)) ^ ((A ^ B) & (D >> 8)));
  c ^= c >> 1;
  d ^= d >> 1;
  a = x ^ y;
  b = d | (0xffff ^ (a | c));
  a = (a | (a << 8)) & 0x00ff00ff;
  a = (a | (a << 4)) & 0x0f0f0f0f;
  a = (a | (a << 2)) & 0x33333333;
  a = (a | (a << 1)) & 0x55555555;
  b = (b | (b << 8)) & 0x00ff00ff;
  b = (b | (b << 4)) & 0x0f0f0f0f;
  b = (b | (b << 2)) & 0x33333333;
  b = (b | (b << 1)) & 0x55555555;
  return ((b << 1) | a) >>> 0;
}

export interface Bounds { minX: number; minY: number; maxX: number; maxY: number }

/**
 * Item ids 0..n-1 in two-level Hilbert order: a 48-bit key (32-bit coarse Hilbert over the
 * bounds, 16-bit Hilbert within the coarse cell, ~2 m on a world-wide store) sorted in three
 * 16-bit LSD radix passes. All three histograms come from one sequential pass, and the first
 * pass needs no gather, so only one random read per item remains (coarse keys in pass two).
 */
export function hilbertOrder(xs: Float32Array, ys: Float32Array, n: number, b: Bounds): Uint32Array {
  const sx = 65535 / ((b.maxX - b.minX) || 1);
  const sy = 65535 / ((b.maxY - b.minY) || 1);
  let coarse: Uint32Array | undefined = new Uint32Array(n);
  let fine: Uint16Array | undefined = new Uint16Array(n);
  const h0 = new Uint32Array(65536), h1 = new Uint32Array(65536), h2 = new Uint32Array(65536);
  for (let i = 0; i < n; i++) {
    const fx = (xs[i] - b.minX) * sx;
    const fy = (ys[i] - b.minY) * sy;
    const cx = Math.min(65535, fx | 0);
    const cy = Math.min(65535, fy | 0);
    const c = hilbert(cx, cy);
    const f = hilbert(Math.min(255, ((fx - cx) * 256) | 0), Math.min(255, ((fy - cy) * 256) | 0));
    coarse[i] = c;
    fine[i] = f;
    h0[f]++; h1[c & 0xffff]++; h2[c >>> 16]++;
  }
  prefix(h0); prefix(h1); prefix(h2);
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[h0[fine[i]]++] = i;
  fine = undefined;
  const bArr = new Uint32Array(n);
  let hi: Uint16Array | undefined = new Uint16Array(n);
  for (let k = 0; k < n; k++) {
    const id = a[k];
    const c = coarse[id];
    const pos = h1[c & 0xffff]++;
    bArr[pos] = id;
    hi[pos] = c >>> 16;
  }
  coarse = undefined;
  for (let k = 0; k < n; k++) a[h2[hi[k]]++] = bArr[k];
  hi = undefined;
  return a;
}

function prefix(h: Uint32Array): void {
  let sum = 0;
  for (let d = 0; d < h.length; d++) { const c = h[d]; h[d] = sum; sum += c; }
}
