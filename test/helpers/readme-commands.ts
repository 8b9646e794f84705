/**
 * Test support: the command lines README.md and docs/ show, read from them at test time so the
 * test follows the documents as they change. A command is one logical line: lines ending in `\`
 * are joined.
 */

export interface ReadmeCommand {
  /** As printed (continuations joined), without its trailing comment. */
  command: string;
  /** What the README says it prints: the text after `# →` up to the first `…`, if any. */
  expect?: string;
}

export interface ReadmeBlock { where: string; commands: ReadmeCommand[] }

/** Every ```sh block, one block per fence; `file` names the document in `where`. */
export function shBlocks(markdown: string, file = 'README.md'): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const fence = /^```sh[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m: RegExpExecArray | null; (m = fence.exec(markdown)); ) {
    const line = markdown.slice(0, m.index).split('\n').length;
    const text = m[1].replace(/\\\n/g, ' ');
    const commands = text.split('\n').map(splitComment).filter((c) => c.command !== '');
    blocks.push({ where: `${file} line ${line}`, commands });
  }
  return blocks;
}

/** The `dwell …` commands in the first column of the table under "## Commands". */
export function commandsTable(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Commands\n')) ?? '';
  return section.split('\n')
    .filter((row) => row.startsWith('| `'))
    .map((row) => /^\| `((?:[^`])*)`/.exec(row)![1].replace(/\\\|/g, '|'));
}

/** A command line that names what the reader supplies (`<file>`), options (`[…]`) or choices (`a|b`). */
export const isTemplate = (command: string) => /[<[…]|\|/.test(command.replace(/'[^']*'|"[^"]*"/g, ''));

/** Splits `cmd   # comment` at the first `#` that starts a word outside quotes. */
function splitComment(line: string): ReadmeCommand {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      const said = /^#\s*→\s*(.*)$/.exec(line.slice(i).trim())?.[1];
      return { command: line.slice(0, i).trim(), expect: said?.split('…')[0] || undefined };
    }
  }
  return { command: line.trim() };
}
