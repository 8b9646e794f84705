import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT, loadConfig, settingsMarkdown } from '../src/config.js';
import { markedPart } from '../src/docs/markers.js';

/** The operators' document holds the settings table (the README links to it). */
const doc = () => readFileSync(path.join(PACKAGE_ROOT, 'docs/operating.md'), 'utf8');

test('docs: the settings table of docs/operating.md is the one config.ts generates', () => {
  const shown = markedPart(doc(), 'settings');
  assert.ok(shown !== undefined, 'expected <!-- settings:begin --> … <!-- settings:end --> in docs/operating.md, found none');
  assert.equal(shown, settingsMarkdown(), 'the settings table of docs/operating.md differs from src/config.ts: run `npm run docs:settings`');
});

test('docs: the settings table has a row for every setting loadConfig reads', () => {
  const rows = settingsMarkdown().split('\n').slice(2);
  assert.equal(rows.length, Object.keys(loadConfig({}, {})).length);
});
