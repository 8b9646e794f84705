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
import { replaceMarkedPart } from '../../src/docs/markers.js';

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

/** How this process was started, as someone would type it from the package root. */
function commandLine(): string {
  const script = path.relative(ROOT, process.argv[1] ?? '');
  return ['node', script, ...process.argv.slice(2)].join(' ');
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
