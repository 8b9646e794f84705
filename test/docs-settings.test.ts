import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT, loadConfig, settingsMarkdown } from '../src/config.js';
import { markedPart } from '../src/docs/markers.js';

const readme = () => readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');

test('docs: the README settings table is the one config.ts generates', () => {
  const inReadme = markedPart(readme(), 'settings');
  assert.ok(inReadme !== undefined, 'expected <!-- settings:begin --> … <!-- settings:end --> in README.md, found none');
  assert.equal(inReadme, settingsMarkdown(), 'the README settings table differs from src/config.ts: run `npm run docs:settings`');
});

test('docs: the settings table has a row for every setting loadConfig reads', () => {
  const rows = settingsMarkdown().split('\n').slice(2);
  assert.equal(rows.length, Object.keys(loadConfig({}, {})).length);
});
