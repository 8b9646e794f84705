/**
 * Seeded randomness, the one generator of the research tools, the benchmarks (bench/lib/rng.ts
 * builds its workload helpers on it) and the tests: the same seed gives the same draws on every
 * run, so a failure or a figure can be reproduced. Not for anything secret.
 */

/** mulberry32: uniforms in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniforms and Box–Muller standard normals from one seed. */
export function seeded(seed: number): { next: () => number; normal: () => number } {
  const next = mulberry32(seed);
  return { next, normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()) };
}
