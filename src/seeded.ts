/**
 * Seeded randomness: the same seed gives the same draws on every run. The product's warm-up
 * requests (server/warm-up-request.ts) and the tooling (devkit/rng.ts: the research tools, the
 * benchmarks, the tests) draw from this one generator. Not for anything secret.
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

/** A standard normal by Box–Muller from two of `next`'s uniforms. */
export const normalFrom = (next: () => number): number => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());

/** Uniforms and standard normals from one seed. */
export function seeded(seed: number): { next: () => number; normal: () => number } {
  const next = mulberry32(seed);
  return { next, normal: () => normalFrom(next) };
}
