/**
 * The order in which points are packed into the R-tree. Flatbush's own finish() sorts by a
 * 16-bit-per-axis Hilbert value over the whole bbox: on a world-wide store that is a ~600 m
 * cell, and in a dense city hundreds of venues share a cell and end up scrambled across many
 * leaves, so a 100 m query scans them all. Here a second, within-cell Hilbert key breaks the
 * ties, giving ~1 cm resolution, sorted with a stable LSD radix sort (O(n), no comparator).
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

/** Item ids 0..n-1 in two-level Hilbert order of their (xs, ys). */
export function hilbertOrder(xs: Float32Array, ys: Float32Array, n: number, b: Bounds): Uint32Array {
  const sx = 65535 / ((b.maxX - b.minX) || 1);
  const sy = 65535 / ((b.maxY - b.minY) || 1);
  let coarse: Uint32Array | undefined = new Uint32Array(n);
  let fine: Uint32Array | undefined = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const fx = (xs[i] - b.minX) * sx;
    const fy = (ys[i] - b.minY) * sy;
    const cx = Math.min(65535, fx | 0);
    const cy = Math.min(65535, fy | 0);
    coarse[i] = hilbert(cx, cy);
    fine[i] = hilbert(Math.min(65535, ((fx - cx) * 65536) | 0), Math.min(65535, ((fy - cy) * 65536) | 0));
  }
  let perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  let tmp = new Uint32Array(n);
  // Least significant digit first: fine key low/high 16 bits, then the coarse key.
  for (const [keys, shift] of [[fine, 0], [fine, 16], [coarse, 0], [coarse, 16]] as const) {
    radixPass(keys, shift, perm, tmp, n);
    [perm, tmp] = [tmp, perm];
  }
  coarse = fine = undefined;
  return perm;
}

const counts = new Uint32Array(65536);

function radixPass(keys: Uint32Array, shift: number, src: Uint32Array, dst: Uint32Array, n: number): void {
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[(keys[src[i]] >>> shift) & 0xffff]++;
  let sum = 0;
  for (let d = 0; d < 65536; d++) { const c = counts[d]; counts[d] = sum; sum += c; }
  for (let i = 0; i < n; i++) { const id = src[i]; dst[counts[(keys[id] >>> shift) & 0xffff]++] = id; }
}
