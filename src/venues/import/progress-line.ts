/**
 * The one line `dwell import` keeps redrawing on a terminal: phase, objects read, venues kept,
 * rate and, when the reader knows how far through its input it is, percent done and ETA.
 * Pure, so its wording is tested without a terminal.
 */

export interface ProgressState {
  format: string;
  phase: string;
  rows: number;
  venues: number;
  bad: number;
  /** Seconds since the import started. */
  seconds: number;
  /** Share of the input read, 0…1; undefined when the reader cannot tell (size unknown). */
  fraction?: number;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** "42 s", "3 min 05 s", "1 h 02 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * Seconds left, from the rate so far: undefined until there is enough to go on (1 % read and
 * 2 s elapsed), because an estimate from the first blob of a file is noise.
 */
export function eta(fraction: number | undefined, seconds: number): number | undefined {
  if (fraction === undefined || !(fraction >= 0.01) || seconds < 2) return undefined;
  if (fraction >= 1) return 0;
  return (seconds * (1 - fraction)) / fraction;
}

export function progressLine(p: ProgressState, width = 120): string {
  const parts = [
    `import ${p.format} [${p.phase}]`,
    `${count(p.rows)} read`,
    `${count(p.venues)} venues`,
    `${count(p.rows / Math.max(p.seconds, 1e-3))}/s`,
  ];
  if (p.bad > 0) parts.push(`${count(p.bad)} bad`);
  if (p.fraction !== undefined) parts.push(`${Math.min(100, Math.floor(p.fraction * 100))} %`);
  const left = eta(p.fraction, p.seconds);
  parts.push(left === undefined ? duration(p.seconds) : `${duration(p.seconds)}, ETA ${duration(left)}`);
  const line = parts.join(' · ');
  return line.length > width ? line.slice(0, Math.max(0, width - 1)) + '…' : line;
}
