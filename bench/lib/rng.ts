/** Seeded randomness for benchmarks: the same seed gives the same workload on every run. */
import { mulberry32 } from '../../src/devkit/rng.js';

export { mulberry32 };

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
