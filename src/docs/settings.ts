/**
 * `npm run docs:settings`: writes the settings table of config.ts into docs/operating.md between
 * `<!-- settings:begin -->` and `<!-- settings:end -->`, so the operators' document lists every
 * setting there is (test/docs-settings.test.ts fails when they differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT, settingsMarkdown } from '../config.js';
import { markedPart, replaceMarkedPart } from './markers.js';

/** Where the settings table lives: the operators' document, "Settings". */
const SETTINGS_DOC = path.join(PACKAGE_ROOT, 'docs/operating.md');

const text = readFileSync(SETTINGS_DOC, 'utf8');
if (markedPart(text, 'settings') === undefined) {
  process.stderr.write(`expected <!-- settings:begin --> and <!-- settings:end --> in ${SETTINGS_DOC}, found neither\n`);
  process.exit(1);
}
const next = replaceMarkedPart(text, 'settings', settingsMarkdown());
if (next !== text) writeFileSync(SETTINGS_DOC, next);
process.stdout.write(next === text ? 'docs/operating.md settings table already up to date\n' : 'docs/operating.md settings table rewritten\n');
