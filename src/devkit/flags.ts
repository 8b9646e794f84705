/**
 * The one command-line reader of the tooling (issue 32): the research tools and the benchmarks.
 * Flags are read strictly (an undeclared flag is refused by name, exit code 2), so a typo never
 * measures the defaults under another name. It lives in the development kit, which bench/ and
 * the research tools both import (src/ may not import bench/).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A flag that takes a value (`--name value`) or a switch (`--name`). */
export type FlagKind = 'string' | 'boolean';

/** The research tools' `--flag value` pairs, and the positionals (their subcommands). */
export function flags<K extends string>(names: readonly K[], usage: string, argv = process.argv.slice(2)): { values: Partial<Record<K, string>>; rest: string[] } {
  const spec = Object.fromEntries(names.map((n) => [n, 'string' as const])) as Record<K, 'string'>;
  const { values, positionals } = parse(spec, usage, argv, true);
  return { values: values as Partial<Record<K, string>>, rest: positionals };
}

/** A benchmark's flags: every one declared with its kind, no positionals; the fallback is given where it is read. */
export function benchFlags<S extends Record<string, FlagKind>>(spec: S, usage: string, argv = process.argv.slice(2)) {
  const { values } = parse(spec, usage, argv, false);
  type Name = keyof S & string;
  const str = (name: Name, fallback: string): string => {
    const v = values[name];
    return typeof v === 'string' ? v : fallback;
  };
  return {
    /** Whether the flag was given (a switch, or a value flag whose presence chooses a mode). */
    has: (name: Name): boolean => values[name] !== undefined,
    str,
    /** A number flag: a value that is not a finite number exits 2 naming it, instead of running on NaN. */
    num: (name: Name, fallback: number): number => {
      const raw = values[name];
      if (typeof raw !== 'string') return fallback;
      const n = Number(raw);
      return Number.isFinite(n) ? n : die(`--${name}: expected a number, got ${JSON.stringify(raw)}`);
    },
  };
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util's parseArgs with its options as given (types, defaults), for a benchmark that reads
 * `values` directly: strict, no positionals, and a wrong flag exits 2 naming it and the flags
 * there are, instead of an uncaught TypeError.
 */
export function readFlags<const O extends Options>(options: O, argv = process.argv.slice(2)): ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'] {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    const known = Object.keys(options).map((n) => `--${n}`).join(' ');
    return die(`${(e as Error).message}\nflags: ${known}`);
  }
}

function parse(spec: Record<string, FlagKind>, usage: string, argv: string[], allowPositionals: boolean) {
  try {
    return parseArgs({
      args: argv, allowPositionals, strict: true,
      options: Object.fromEntries(Object.entries(spec).map(([n, type]) => [n, { type }])),
    });
  } catch (e) {
    return die(`${(e as Error).message}\nusage: ${usage}`);
  }
}

/** The message, on stderr, and exit code 2. */
export function die(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
