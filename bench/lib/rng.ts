/** Seeded randomness for benchmarks: the same seed gives the same workload on every run. */

/** mulberry32: a tiny 32-bit PRNG, good enough for workloads (not for anything secret). */
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

export interface Rng {
  /** [0, 1) */
  next(): number;
  /** [min, max) */
  float(min: number, max: number): number;
  /** integer in [min, max] */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** true with probability p */
  chance(p: number): boolean;
  /**
   * Approximately normal, mean 0, standard deviation √0.5 ≈ 0.71 (six uniforms summed, minus 3).
   * Not 1: the workloads' spreads were set with this scale, so it stays as it is.
   */
  gauss(): number;
}

export function rng(seed: number): Rng {
  const next = mulberry32(seed);
  return {
    next,
    float: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor((max - min + 1) * next()),
    pick: (items) => items[Math.floor(items.length * next())],
    chance: (p) => next() < p,
    gauss: () => next() + next() + next() + next() + next() + next() - 3,
  };
}
