import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { commandLine, writePerformanceRow, writePerformanceSection } from '../lib/perf-doc.js';

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

const ACCURACY = `# Performance

<!-- bench:accuracy:begin -->
| Set | top1 | top3 | target | measured |
|---|---:|---:|---|---|
| NYC s1 (fit) | 0.848 | 0.964 | top1 ≥ 0.85 | 2026-11-24, b6e3ecc |
| NYC s2 | 0.847 | 0.965 | top1 ≥ 0.85 | 2026-11-24, b6e3ecc |

| Unstructured set | precision | measured |
|---|---|---|
| NYC u2 | 0.927 | 2026-11-24, b6e3ecc |

Measured 2026-11-24 at commit b6e3ecc (\`npm run bench:accuracy\`), load average 3.0.
<!-- bench:accuracy:end -->

## after
`;

const COLUMNS = ['Set', 'top1', 'top3', 'measured'];
const section = (text: string) => /<!-- bench:accuracy:begin -->\n([\s\S]*)\n<!-- bench:accuracy:end -->/.exec(text)![1];

function docWith(t: import('node:test').TestContext, text: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dwell-perf-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'performance.md');
  writeFileSync(file, text);
  return file;
}

test('perf-doc: a row-level write replaces the row of its set and keeps every other row, the hand-kept target and the prose', (t) => {
  const file = docWith(t, ACCURACY);
  writePerformanceRow('accuracy', COLUMNS, { Set: 'NYC s2', top1: '0.851', top3: '0.966' }, { file, now: new Date('2027-01-05T10:00:00Z'), command: 'node dist/bench/accuracy.js --name \'NYC s2\'', commit: 'f00ba47' });
  const text = readFileSync(file, 'utf8');
  assert.equal(section(text), `| Set | top1 | top3 | target | measured |
|---|---:|---:|---|---|
| NYC s1 (fit) | 0.848 | 0.964 | top1 ≥ 0.85 | 2026-11-24, b6e3ecc |
| NYC s2 | 0.851 | 0.966 | top1 ≥ 0.85 | 2027-01-05, f00ba47 |

| Unstructured set | precision | measured |
|---|---|---|
| NYC u2 | 0.927 | 2026-11-24, b6e3ecc |

Measured 2027-01-05 at commit f00ba47 (\`node dist/bench/accuracy.js --name 'NYC s2'\`), load average ${/load average ([\d.]+)\.\n<!--/.exec(text)![1]}.`);
  assert.ok(text.startsWith('# Performance\n\n<!-- bench:accuracy:begin -->') && text.endsWith('<!-- bench:accuracy:end -->\n\n## after\n'), 'the text around the section is unchanged');
});

test('perf-doc: a set not in the table yet is appended to it, and a table the section lacks is created', (t) => {
  const file = docWith(t, ACCURACY);
  writePerformanceRow('accuracy', COLUMNS, { Set: 'Monaco m1', top1: '0.793', top3: '0.966' }, { file, now: new Date('2027-01-05T10:00:00Z'), commit: 'f00ba47' });
  writePerformanceRow('accuracy', ['Beacons set', 'top1', 'measured'], { 'Beacons set': 'NYC b1', top1: '0.9' }, { file, now: new Date('2027-01-06T10:00:00Z'), commit: 'c0ffee1' });
  const rows = section(readFileSync(file, 'utf8')).split('\n');
  assert.deepEqual(rows.slice(2, 5), ['| NYC s1 (fit) | 0.848 | 0.964 | top1 ≥ 0.85 | 2026-11-24, b6e3ecc |', '| NYC s2 | 0.847 | 0.965 | top1 ≥ 0.85 | 2026-11-24, b6e3ecc |', '| Monaco m1 | 0.793 | 0.966 |  | 2027-01-05, f00ba47 |']);
  assert.deepEqual(rows.slice(6, 9), ['| Unstructured set | precision | measured |', '|---|---|---|', '| NYC u2 | 0.927 | 2026-11-24, b6e3ecc |']);
  assert.deepEqual(rows.slice(10, 13), ['| Beacons set | top1 | measured |', '|---|---|---|', '| NYC b1 | 0.9 | 2027-01-06, c0ffee1 |']);
  assert.match(rows[14], /^Measured 2027-01-06 at commit c0ffee1 /);
  assert.equal(rows.length, 15, 'one stamp, the last run\'s');
});

test('perf-doc: the command in the stamp names no machine paths and quotes what has spaces', () => {
  assert.match(commandLine(['/usr/bin/node', '/x/y/dist/bench/accuracy.js', '--venues', '/srv/data/vd/nyc-venues.jsonl.gz', '--requests', 'sets/nyc-s2', '--name', 'NYC structured s2']),
    / --venues <nyc-venues\.jsonl\.gz> --requests sets\/nyc-s2 --name 'NYC structured s2'$/);
});
