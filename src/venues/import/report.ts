/**
 * Counting and telling: rows seen, venues kept, bad rows (all counted, the first 100 kept with
 * their line numbers and reasons), unmapped categories, and a progress log line about once a
 * second.
 */
import { log } from '../../log.js';
import type { BadRow, ImportFormat } from '../types.js';

const KEEP_BAD = 100;

export class Progress {
  rows = 0;
  venues = 0;
  bad = 0;
  readonly badRows: BadRow[] = [];
  readonly unmapped = new Map<string, number>();
  private readonly started = Date.now();
  private lastLog = Date.now();
  phase = 'read';

  constructor(readonly format: ImportFormat, readonly file: string, readonly quiet = false) {}

  /** Counts one input row (line or OSM object) and logs progress now and then. */
  row(): void {
    if ((++this.rows & 0xfff) === 0) this.maybeLog();
  }

  badRow(line: number | string, reason: string): void {
    this.bad++;
    if (this.badRows.length < KEEP_BAD) this.badRows.push({ line, reason });
  }

  unmappedCategory(name: string): void {
    this.unmapped.set(name, (this.unmapped.get(name) ?? 0) + 1);
  }

  maybeLog(force = false): void {
    const now = Date.now();
    if (this.quiet || (!force && now - this.lastLog < 1000)) return;
    this.lastLog = now;
    const seconds = (now - this.started) / 1000;
    log.info('import progress', {
      format: this.format, file: this.file, phase: this.phase, rows: this.rows, venues: this.venues, bad: this.bad,
      rows_per_s: Math.round(this.rows / Math.max(seconds, 1e-3)), seconds: Math.round(seconds * 10) / 10,
    });
  }

  seconds(): number {
    return (Date.now() - this.started) / 1000;
  }
}
