/**
 * A benchmark's own flags, read from its command line: `--name value` and `--name` switches. A
 * number flag whose value is not a number exits 2 naming it instead of running on NaN (with a
 * range: num-flag.ts).
 */

const argv = process.argv.slice(2);

/** The word after `--name`, or undefined when the flag is absent. */
export function flagValue(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

export const hasFlag = (name: string): boolean => argv.includes(`--${name}`);
export function numArg(name: string, fallback: number): number {
  const raw = flagValue(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) {
    process.stderr.write(`--${name}: expected a number, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}
export const strArg = (name: string, fallback: string): string => flagValue(name) ?? fallback;
