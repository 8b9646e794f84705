/** Seeded randomness: the development kit's one generator (src/devkit/rng.ts), shared with the benchmarks and tests. */
export * from '../devkit/rng.js';
