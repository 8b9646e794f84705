import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { writePerformanceSection } from '../bench/lib/perf-doc.js';

const DOC = `# Performance

Prose that stays.

<!-- bench:http:begin -->
| old | table |
|---|---|
Measured 2026-11-22 at commit abc1234 (\`npm run bench:http\`), load average 3.0.
<!-- bench:http:end -->

## detect

<!-- bench:detect:begin -->
| kept |
<!-- bench:detect:end -->
`;

test('perf-doc: a benchmark replaces its own section, dated and with the commit, and nothing else', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-perf-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'performance.md');
  writeFileSync(file, DOC);
  writePerformanceSection('http', '| new | table |\n|---|---|\n| 1 | 2 |', { file, now: new Date('2027-01-05T10:00:00Z'), command: 'node dist/bench/http.js --quick', commit: 'f00ba47' });
  const text = readFileSync(file, 'utf8');
  assert.match(text, /<!-- bench:http:begin -->\n\| new \| table \|\n\|---\|---\|\n\| 1 \| 2 \|\n\nMeasured 2027-01-05 at commit f00ba47 \(`node dist\/bench\/http.js --quick`\), load average \d+\.\d\.\n<!-- bench:http:end -->/);
  assert.doesNotMatch(text, /old \| table|abc1234/);
  assert.equal(text.replace(/<!-- bench:http:begin -->[\s\S]*<!-- bench:http:end -->/, ''), DOC.replace(/<!-- bench:http:begin -->[\s\S]*<!-- bench:http:end -->/, ''));
});

test('perf-doc: a benchmark with no section yet gets one at the end, under its name', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-perf-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'performance.md');
  writeFileSync(file, DOC);
  writePerformanceSection('export', '| a |\n|---|', { file, commit: 'f00ba47' });
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith(DOC), 'the rest of the file is unchanged');
  assert.match(text.slice(DOC.length), /^\n## export\n\n<!-- bench:export:begin -->\n\| a \|\n\|---\|\n\nMeasured \d{4}-\d\d-\d\d at commit f00ba47 \(`node [^`]*`\), load average [\d.]+\.\n<!-- bench:export:end -->\n$/);
});
