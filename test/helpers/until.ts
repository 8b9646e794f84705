/** Waiting for a condition: the development kit's (src/devkit/until.ts), shared with the benchmarks. */
export { until } from '../../src/devkit/until.js';
