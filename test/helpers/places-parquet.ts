/** Parquet place files for the import tests: the development kit's (src/devkit/places-parquet.ts), shared with bench:import-parquet. */
export * from '../../src/devkit/places-parquet.js';
