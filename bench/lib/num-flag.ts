/** A numeric command-line flag of a benchmark: the fallback when absent, exit 2 with what was expected and what arrived when out of range. */
export function numFlag(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) {
    process.stderr.write(`--${name}: expected a number from ${min} to ${max}, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}
