/**
 * `npm run docs:settings`: writes the settings table of config.ts into the README between
 * `<!-- settings:begin -->` and `<!-- settings:end -->`, so the README lists every setting
 * there is (test/docs-settings.test.ts fails when they differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, settingsMarkdown } from '../config.js';
import { markedPart, replaceMarkedPart } from './markers.js';

const README = path.join(PACKAGE_ROOT, 'README.md');
const text = readFileSync(README, 'utf8');
if (markedPart(text, 'settings') === undefined) {
  process.stderr.write(`expected <!-- settings:begin --> and <!-- settings:end --> in ${README}, found neither\n`);
  process.exit(1);
}
const next = replaceMarkedPart(text, 'settings', settingsMarkdown());
if (next !== text) writeFileSync(README, next);
process.stdout.write(next === text ? 'README settings table already up to date\n' : 'README settings table rewritten\n');
