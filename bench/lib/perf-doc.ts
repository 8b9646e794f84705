/**
 * Benchmarks write their own figures into docs/performance.md, each between
 * `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->`, with the date, the commit and the
 * command that produced them: the figures in the docs are always a run's output, never retyped.
 * `--no-doc` on any benchmark's command line skips the write (quick runs, experiments).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markedPart, replaceMarkedPart } from '../../src/docs/markers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const PERFORMANCE_DOC = path.join(ROOT, 'docs', 'performance.md');

/** The short commit of the checkout, `-dirty` when tracked files differ from it; `unknown` outside git. */
export function commitLabel(cwd = ROOT): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const sha = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? sha : `${sha}-dirty`;
  } catch {
    return 'unknown';
  }
}

/**
 * How this process was started, as someone would type it from the package root: an argument
 * with spaces is quoted, and an absolute path shows as `<its base name>` (where this machine
 * keeps its data sets is nobody else's business, and would not work elsewhere).
 */
export function commandLine(argv: readonly string[] = process.argv): string {
  const show = (a: string) => path.isAbsolute(a) ? `<${path.basename(a)}>` : /[\s"'$`]/.test(a) ? `'${a.replace(/'/g, `'\\''`)}'` : a;
  return ['node', path.relative(ROOT, argv[1] ?? ''), ...argv.slice(2).map(show)].join(' ');
}

interface Options { file?: string; now?: Date; command?: string; commit?: string }

/**
 * Replaces the section `name` of docs/performance.md with `markdown` and a line saying when, at
 * which commit, by which command and under what load it was measured. Does nothing under --no-doc.
 */
export function writePerformanceSection(name: string, markdown: string, o: Options = {}): void {
  if (process.argv.includes('--no-doc')) return;
  const file = o.file ?? PERFORMANCE_DOC;
  const day = (o.now ?? new Date()).toISOString().slice(0, 10);
  const commit = o.commit ?? commitLabel(path.dirname(file));
  const stamp = `Measured ${day} at commit ${commit} (\`${o.command ?? commandLine()}\`), load average ${loadavg()[0].toFixed(1)}.`;
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; }
  writeFileSync(file, replaceMarkedPart(text, `bench:${name}`, `${markdown.trim()}\n\n${stamp}`, `## ${name}`));
  const shown = path.relative(ROOT, file);
  process.stderr.write(`[${name}] figures written to ${shown.startsWith('..') ? file : shown} (--no-doc skips this)\n`);
}

const cellsOf = (line: string): string[] => line.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim());
const lineOf = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
const separatorOf = (cells: readonly string[]): string => `|${cells.join('|')}|`;
const isRow = (line: string): boolean => line.trim().startsWith('|');

/**
 * `markdown` with one row of a table set: the table is the one whose header starts with
 * `columns[0]` (created at the end when there is none), the row the one whose first cell is
 * `row[columns[0]]` (appended when there is none). Cells `row` does not give keep their old
 * value, so hand-kept columns (a target) survive; columns the table lacks are added to it.
 */
export function upsertTableRow(markdown: string, columns: readonly string[], row: Readonly<Record<string, string>>): string {
  const key = row[columns[0]];
  if (key === undefined) throw new Error(`expected a value for the key column "${columns[0]}", got ${JSON.stringify(row)}`);
  const value = (c: string) => (row[c] ?? '').replace(/\|/g, '\\|');
  const lines = markdown.trim() === '' ? [] : markdown.trim().split('\n');
  const head = lines.findIndex((l, i) => isRow(l) && (i === 0 || !isRow(lines[i - 1])) && cellsOf(l)[0] === columns[0]);
  if (head < 0) {
    const table = [lineOf(columns), separatorOf(columns.map(() => '---')), lineOf(columns.map(value))];
    return [...lines, ...(lines.length ? [''] : []), ...table].join('\n');
  }
  let end = head;
  while (end + 1 < lines.length && isRow(lines[end + 1])) end++;
  const header = cellsOf(lines[head]);
  for (const c of columns) if (!header.includes(c)) header.push(c);
  const widen = (cells: string[]) => header.map((_, i) => cells[i] ?? '');
  const body = lines.slice(head + 2, end + 1).map((l) => widen(cellsOf(l)));
  const old = body.find((cells) => cells[0] === key);
  const fresh = header.map((c, i) => (c in row ? value(c) : old?.[i] ?? ''));
  const rows = old ? body.map((cells) => (cells === old ? fresh : cells)) : [...body, fresh];
  const align = cellsOf(lines[head + 1] ?? '');
  const table = [lineOf(header), separatorOf(header.map((_, i) => align[i] || '---')), ...rows.map(lineOf)];
  return [...lines.slice(0, head), ...table, ...lines.slice(end + 1)].join('\n');
}

/** A section's content without the stamp line writePerformanceSection ends it with. */
function withoutStamp(content: string): string {
  const lines = content.trimEnd().split('\n');
  if (/^Measured \d{4}-\d\d-\d\d /.test(lines[lines.length - 1])) lines.pop();
  return lines.join('\n').trimEnd();
}

/**
 * Sets one row of a table in section `name` (see upsertTableRow) and leaves the rest of the
 * section as it was: for benchmarks measured one data set at a time. A `measured` column, when
 * the table has one, gets the date and commit of this run; the section's stamp says which run
 * wrote last. Does nothing under --no-doc.
 */
export function writePerformanceRow(name: string, columns: readonly string[], row: Readonly<Record<string, string>>, o: Options = {}): void {
  if (process.argv.includes('--no-doc')) return;
  const file = o.file ?? PERFORMANCE_DOC;
  const now = o.now ?? new Date();
  const commit = o.commit ?? commitLabel(path.dirname(file));
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; }
  const content = withoutStamp(markedPart(text, `bench:${name}`) ?? '');
  const updated = upsertTableRow(content, columns, { ...row, measured: `${now.toISOString().slice(0, 10)}, ${commit}` });
  writePerformanceSection(name, updated, { ...o, file, now, commit });
}
