/**
 * The README is the first screen and docs/ the rest: every relative link in README.md and
 * docs/*.md leads to a file that exists and, with a `#anchor`, to a heading of that file, as a
 * reader following them on GitHub or in an editor would find.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../src/config.js';
import { anchorsOf, linksOf, slug } from './helpers/markdown-links.js';

const DOCS = ['README.md', ...readdirSync(path.join(PACKAGE_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const read = (file: string) => readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');

/** What is wrong with one link of `from` (a path from the package root), or undefined when it resolves. */
function broken(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: not ours to check offline
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const to = file === '' ? from : path.join(path.dirname(from), decodeURIComponent(file));
  const abs = path.join(PACKAGE_ROOT, to);
  if (!existsSync(abs)) return `${to} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(abs).isDirectory() || !to.endsWith('.md')) return `#${anchor} points into ${to}, which has no headings`;
  return anchorsOf(read(to)).has(decodeURIComponent(anchor)) ? undefined : `${to} has no heading #${anchor}`;
}

test('docs: every relative link and #anchor in README.md and docs/*.md resolves', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const doc of DOCS) {
    for (const { line, target } of linksOf(read(doc))) {
      checked++;
      const why = broken(doc, target);
      if (why) problems.push(`${doc}:${line} (${target}): ${why}`);
    }
  }
  assert.ok(checked > 50, `expected the docs to link to each other, found ${checked} links`);
  assert.deepEqual(problems, []);
});

test('docs: README.md is the first screen (at most 250 lines) and links every document of docs/', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  const linked = new Set(linksOf(readme).map((l) => l.target.split('#')[0]));
  const unlinked = DOCS.filter((d) => d !== 'README.md' && !linked.has(d));
  assert.deepEqual(unlinked, [], 'documents of docs/ the README does not link');
});

test('docs: the link checker finds a missing file, a missing anchor, and skips code', () => {
  assert.equal(slug('Backup, restore and upgrade'), 'backup-restore-and-upgrade');
  assert.equal(slug('HTTP front end: `npm run bench:http`'), 'http-front-end-npm-run-benchhttp');
  assert.equal(slug('4b. Beacons'), '4b-beacons');
  const md = '# A\n## A\n[x](#a-1) `[y](nowhere.md)`\n```\n[z](gone.md)\n```\n[w](docs/nope.md#b)';
  assert.deepEqual([...anchorsOf(md)], ['a', 'a-1']);
  assert.deepEqual(linksOf(md).map((l) => l.target), ['#a-1', 'docs/nope.md#b']);
  assert.equal(broken('README.md', 'docs/nope.md'), 'docs/nope.md does not exist');
  assert.equal(broken('README.md', 'docs/api.md#no-such-heading'), 'docs/api.md has no heading #no-such-heading');
  assert.equal(broken('docs/api.md', 'ranking.md'), undefined);
});
