/**
 * Every command line README.md and docs/*.md show, run as printed. The lines are read from the
 * documents at test time: each ```sh block runs in one bash session of its own (exports and `&`
 * jobs carry from line to line, as for a reader typing them), and each concrete `dwell …` command
 * of the README's Commands table in a session of its own. (A block that needs what a test machine
 * lacks, fixed ports or nginx, is fenced as ```bash and says it is not run here.) Each line must
 * exit 0; a line that starts a server (`npm start`, `dwell serve`) must answer /healthz, and a
 * line with a `# → …` comment must print what the comment shows up to its first `…`.
 *
 * What differs from a reader's terminal, and why:
 * - The session runs in a scratch copy of the checkout (a directory of symlinks to it, without
 *   `var/`), so the default data directory and any relative output land there, not in the repo.
 * - `npm ci` and `npm test` are not run: `npm test` runs this file (it would recurse), `npm ci`
 *   would reinstall node_modules under the other tests; CI runs both itself.
 * - A server line is put in the background if the README runs it in the foreground (it never
 *   returns), and stopped with SIGTERM when its block ends.
 * - PORT is a free port, and the README's 8080 (the default port) in a command means it; so only
 *   one server a block. DWELL_HOST is 127.0.0.1 (localhost, not the network) and DWELL_WORKERS 1
 *   (the machine is shared); every other DWELL_* variable is unset, as on a fresh machine.
 * - `dwell` is the built checkout (dist/src/cli.js) on PATH, as `npm install -g` would put it, and
 *   `npx dwell` runs that too: npm's own npx would install the checkout into its cache and rebuild
 *   it there first.
 * - Commands of the table that are templates (`<file>`, `[…]`, `a|b`) name what the reader
 *   supplies or chooses: they cannot run as printed and are listed as skipped. Examples meant to
 *   be run belong in ```sh blocks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { commandsTable, isTemplate, shBlocks, type ReadmeBlock } from '../helpers/readme-commands.js';
import { CLI, ROOT, freePort, tempDir } from '../helpers/server.js';
import { Shell } from '../helpers/shell.js';
import { until } from '../helpers/until.js';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const NOT_RUN = new Set(['npm ci', 'npm test']);
const SERVER = /\b(npm start|dwell serve)\b/;

const DOCS = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const blocks = [...shBlocks(README), ...DOCS.flatMap((doc) => shBlocks(readFileSync(path.join(ROOT, doc), 'utf8'), doc))];
const table = commandsTable(README);

test('the README shows commands to run', () => {
  assert.ok(blocks.some((b) => b.where.startsWith('README.md')), 'no ```sh block in README.md');
  assert.ok(blocks.every((b) => b.commands.length > 0), 'a ```sh block without commands');
  assert.ok(table.some((c) => c.startsWith('dwell ')), 'no `dwell …` command in the Commands table of README.md');
});

for (const block of blocks) {
  test(`${block.where}: ${block.commands.map((c) => c.command).join(' ; ')}`, () => runBlock(block));
}
for (const command of table) {
  const skip = isTemplate(command) ? 'a template: it names what the reader supplies or chooses' : false;
  test(`README.md Commands table: ${command}`, { skip }, () => runBlock({ where: 'Commands table', commands: [{ command }] }));
}

async function runBlock(block: ReadmeBlock): Promise<void> {
  const scratch = scratchCopy();
  const port = await freePort();
  const shell = new Shell(scratch, sessionEnv(scratch, port), 'npx() { if [ "$1" = dwell ]; then shift; dwell "$@"; else command npx "$@"; fi; }');
  try {
    for (const { command, expect } of block.commands) {
      const line = runnable(command, port);
      if (!line) continue;
      const { code, stdout, stderr } = await shell.run(line);
      assert.equal(code, 0, `${block.where}: \`${command}\` exited with ${code} (every line of a \`\`\`sh block runs as printed: fence data or templates as text)\n${stdout}\n${stderr}`);
      if (SERVER.test(line)) {
        const healthz = `http://127.0.0.1:${port}/healthz`;
        await until(`\`${command}\` to answer ${healthz}`, async () => (await fetch(healthz).catch(() => undefined))?.ok)
          .catch((err: Error) => assert.fail(`${err.message}\n${shell.output()}`));
      }
      if (expect) {
        assert.ok(stdout.split('\n').some((l) => l.startsWith(expect)),
          `${block.where}: the README says \`${command}\` prints ${expect}…; it printed:\n${stdout}\n${stderr}`);
      }
    }
  } finally {
    await shell.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The line to type, or '' when nothing of it is run here (see the header). */
function runnable(command: string, port: number): string {
  const parts = command.split('&&').map((p) => p.trim()).filter((p) => !NOT_RUN.has(p));
  let line = parts.join(' && ').replace(/\b8080\b/g, String(port));
  if (SERVER.test(line) && !line.endsWith('&')) line += ' &';
  return line;
}

function scratchCopy(): string {
  const dir = tempDir('dwell-readme-');
  for (const entry of readdirSync(ROOT)) {
    if (entry !== 'var' && entry !== '.git') symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  }
  mkdirSync(path.join(dir, '.bin'));
  writeFileSync(path.join(dir, '.bin', 'dwell'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(path.join(dir, '.bin', 'dwell'), 0o755);
  return dir;
}

function sessionEnv(scratch: string, port: number): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'PORT' && !k.startsWith('DWELL_')));
  return {
    ...env,
    PATH: `${path.join(scratch, '.bin')}:${process.env.PATH}`,
    PORT: String(port),
    DWELL_HOST: '127.0.0.1',
    DWELL_WORKERS: '1',
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
  };
}

