/**
 * `dwell import` progress: the terminal line's wording (rows, venues, rate, percent, ETA), and
 * that a terminal gets redrawn lines while a pipe gets none of them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { runImport } from '../src/venues/import/build.js';
import { duration, eta, progressLine } from '../src/venues/import/progress-line.js';

const pbf = fileURLToPath(new URL('../../data/monaco-latest.osm.pbf', import.meta.url));
const dirs: string[] = [];
after(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }); });

test('the progress line: counts, rate, percent and ETA once there is enough to go on', () => {
  const base = { format: 'osm', phase: 'nodes', rows: 1_234_567, venues: 12_345, bad: 0, seconds: 10 };
  assert.equal(progressLine({ ...base, fraction: 0.25 }), 'import osm [nodes] · 1,234,567 read · 12,345 venues · 123,457/s · 25 % · 10 s, ETA 30 s');
  assert.equal(progressLine({ ...base, bad: 3 }), 'import osm [nodes] · 1,234,567 read · 12,345 venues · 123,457/s · 3 bad · 10 s', 'no size, no ETA');
  assert.equal(eta(0.005, 60), undefined, 'under 1 % read: no estimate');
  assert.equal(eta(0.5, 1), undefined, 'under 2 s: no estimate');
  assert.equal(eta(0.5, 90), 90);
  assert.equal(duration(3725), '1 h 02 min');
  assert.equal(duration(185), '3 min 05 s');
  assert.ok(progressLine({ ...base, fraction: 0.5 }, 40).length <= 40, 'cut to the terminal width');
});

test('on a terminal an import redraws one line and ends it with the tally; elsewhere it writes none', async () => {
  for (const tty of [true, false]) {
    const out = await mkdtemp(join(tmpdir(), 'dwell-progress-'));
    dirs.push(out);
    let written = '';
    const r = await runImport({ format: 'osm', file: pbf, out, output: { tty, write: (s) => { written += s; }, columns: 100 } });
    assert.equal(r.venues, 846);
    if (!tty) { assert.equal(written, ''); continue; }
    const frames = written.split('\r').filter(Boolean);
    assert.ok(frames.length >= 4, `a frame per phase at least: ${JSON.stringify(written)}`);
    const CLEAR_TO_END = '\x1b[K';
    for (const f of frames) assert.ok(f.endsWith(CLEAR_TO_END) || f.endsWith(`${CLEAR_TO_END}\n`), `each frame clears what the last one left: ${JSON.stringify(f)}`);
    const shown = frames.map((f) => f.replace(CLEAR_TO_END, '').replace('\n', ''));
    for (const f of shown) assert.ok(f.length <= 99, `fits the terminal: ${f}`);
    assert.ok(frames.at(-1)!.endsWith('\n'), 'the tally ends the line');
    assert.match(shown.at(-1)!, /^import osm \[done\] · [\d,]+ read · 846 venues · [\d,]+\/s · 100 % · \d+ s(, ETA 0 s)?$/);
    assert.ok(frames.some((f) => f.includes('[nodes]')), 'the phase is shown');
  }
});
