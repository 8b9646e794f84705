/**
 * The research tools' command lines: `--flag value` pairs read strictly (an undeclared flag is
 * refused by name, exit code 2), so a typo never measures the defaults under another name.
 */
import { parseArgs } from 'node:util';

export function flags<K extends string>(names: readonly K[], usage: string, argv = process.argv.slice(2)): { values: Partial<Record<K, string>>; rest: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
    });
    return { values: values as Partial<Record<K, string>>, rest: positionals };
  } catch (e) {
    return die(`${(e as Error).message}\nusage: ${usage}`);
  }
}

/** The usage line, on stderr, and exit code 2. */
export function die(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
