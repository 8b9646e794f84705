/** The research tools' flags: the one strict reader of the tooling, in the development kit (src/devkit/flags.ts). */
export * from '../devkit/flags.js';
