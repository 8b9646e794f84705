/** Where the vdsim simulator is: the development kit's locator (src/devkit/vdsim.ts), shared with the benchmarks. */
export * from '../devkit/vdsim.js';
