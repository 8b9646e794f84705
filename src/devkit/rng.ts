/**
 * Seeded randomness for the research tools, the benchmarks (bench/lib/rng.ts builds its workload
 * helpers on it) and the tests: the product's one generator (src/seeded.ts), so a failure or a
 * figure can be reproduced with the same draws the product would make.
 */
export { mulberry32, seeded } from '../seeded.js';
