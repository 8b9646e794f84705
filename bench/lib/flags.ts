/**
 * A benchmark's own flags, read from its command line: `--name value` and `--name` switches. A
 * number flag whose value is not a number exits 2 naming it (num-flag.ts) instead of running on NaN.
 */
import { numFlag } from './num-flag.js';

const argv = process.argv.slice(2);

/** The word after `--name`, or undefined when the flag is absent. */
export function flagValue(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

export const hasFlag = (name: string): boolean => argv.includes(`--${name}`);
export const numArg = (name: string, fallback: number): number => numFlag(name, flagValue(name), fallback, -Infinity, Infinity);
export const strArg = (name: string, fallback: string): string => flagValue(name) ?? fallback;
