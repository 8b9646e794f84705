/**
 * Counting and telling: rows seen, venues kept, bad rows (all counted, the first 100 kept with
 * their line numbers and reasons), unmapped categories, places dropped as closed, and progress.
 *
 * Progress goes where someone will read it: on a terminal (stderr is a TTY) one line redrawn
 * about four times a second (progress-line.ts); otherwise, where stderr is a log pipeline, a
 * structured log line every 10 s, so a long import in a container shows it is alive without
 * flooding the logs. `quiet` silences both.
 */
import { log } from '../../log.js';
import type { BadRow, ImportFormat } from '../types.js';
import { progressLine, type ProgressState } from './progress-line.js';
import { monotonicMs } from '../../time/wall.js';

const KEEP_BAD = 100;
const TTY_EVERY_MS = 250;
const LOG_EVERY_MS = 10_000;

export interface ProgressOutput {
  /** A terminal: redraw one line in place. */
  tty: boolean;
  /** Where the terminal line goes (stderr unless a test captures it). */
  write: (s: string) => void;
  columns?: number;
}

const stderrOutput = (): ProgressOutput => ({
  tty: process.stderr.isTTY === true,
  write: (s) => { process.stderr.write(s); },
  columns: process.stderr.columns || undefined, // 0 on a terminal that does not say its width
});

export class Progress {
  rows = 0;
  venues = 0;
  bad = 0;
  /** Places the source marks as closed, dropped (not bad rows: the source says so on purpose). */
  closed = 0;
  readonly badRows: BadRow[] = [];
  readonly unmapped = new Map<string, number>();
  private readonly started = monotonicMs();
  private lastShown = monotonicMs();
  private drawn = false;
  private fractionOf?: () => number;
  private phaseName = 'read';
  private readonly out: ProgressOutput;

  constructor(readonly format: ImportFormat | string, readonly file: string, readonly quiet = false, out?: ProgressOutput) {
    this.out = out ?? stderrOutput();
  }

  /** Progress is a terminal line (so a closing log line would only repeat it). */
  get tty(): boolean { return this.out.tty; }

  get phase(): string { return this.phaseName; }
  set phase(name: string) {
    this.phaseName = name;
    this.maybeLog(this.out.tty);
  }

  /**
   * How far through its input the reader is, 0…1, asked only when progress is shown. Readers
   * that know their input's size (bytes of a file, rows of a Parquet footer) set it.
   */
  track(fraction: () => number): void {
    this.fractionOf = fraction;
  }

  /** Counts one input row (line, OSM object or Parquet row) and shows progress now and then. */
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

  state(): ProgressState {
    const f = this.fractionOf?.();
    return {
      format: this.format, phase: this.phaseName, rows: this.rows, venues: this.venues, bad: this.bad,
      seconds: this.seconds(), fraction: f !== undefined && Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : undefined,
    };
  }

  maybeLog(force = false): void {
    const now = monotonicMs();
    if (this.quiet || (!force && now - this.lastShown < (this.out.tty ? TTY_EVERY_MS : LOG_EVERY_MS))) return;
    this.lastShown = now;
    const s = this.state();
    if (this.out.tty) {
      this.out.write(`\r${progressLine(s, (this.out.columns || 120) - 1)}\x1b[K`);
      this.drawn = true;
      return;
    }
    log.info('import progress', {
      format: s.format, file: this.file, phase: s.phase, rows: s.rows, venues: s.venues, bad: s.bad,
      rows_per_s: Math.round(s.rows / Math.max(s.seconds, 1e-3)), seconds: Math.round(s.seconds * 10) / 10,
      ...(s.fraction !== undefined ? { percent: Math.floor(s.fraction * 1000) / 10 } : {}),
    });
  }

  /** Leaves the terminal line as the final tally (and the cursor on a fresh line). */
  end(): void {
    if (this.quiet || !this.out.tty) return;
    this.phaseName = 'done';
    this.fractionOf = () => 1;
    this.out.write(`\r${progressLine(this.state(), (this.out.columns || 120) - 1)}\x1b[K\n`);
    this.drawn = false;
  }

  /** Clears a half-drawn line so an error message starts at column 0. */
  abandon(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }

  seconds(): number {
    return (monotonicMs() - this.started) / 1000;
  }
}
