/**
 * The Parquet import formats end to end: the README's example commands run as printed (the
 * sample files of test/fixtures/venues), progress drawn on a terminal and absent from a pipe,
 * and a server on the imported store answering a detection at one of its places.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, startDwell, tempDir, type Running } from '../helpers/server.js';
import { createApp, signed } from '../helpers/client.js';
import { stampAfter } from '../helpers/stamps.js';

/** As the README prints them (`npx dwell` is the built CLI here). */
const README_COMMANDS = [
  'npx dwell import --format fsq-os-places test/fixtures/venues/fsq-os-places-sample.parquet --out stores/fsq',
  'npx dwell import --format overture test/fixtures/venues/overture-places-sample.parquet --out stores/overture',
];

// A scratch directory where the README's relative paths resolve: the fixtures linked in, stores/ written here.
const cwd = tempDir('dwell-parquet-cli-');
mkdirSync(path.join(cwd, 'test'));
symlinkSync(path.join(ROOT, 'test/fixtures'), path.join(cwd, 'test/fixtures'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DWELL_')));

interface Ran { code: number | null; stdout: string; stderr: string }
function run(argv: string[]): Promise<Ran> {
  const proc = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  proc.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  proc.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}
const asRun = (command: string): string[] => [process.execPath, CLI, ...command.split(' ').slice(2)];

let dwell: Running | undefined;
after(async () => { await dwell?.stop(); rmSync(cwd, { recursive: true, force: true }); });

test('the README commands import both sample files; a pipe gets the JSON report and no terminal progress', async () => {
  for (const command of README_COMMANDS) {
    const r = await run(asRun(command));
    assert.equal(r.code, 0, `${command}: ${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.equal(report.venues, 5, command);
    assert.equal(report.closed, 1, command);
    assert.equal(report.bad, 0, command);
    assert.ok(!r.stderr.includes('\r') && !r.stderr.includes('\x1b'), `no terminal control codes on a pipe: ${JSON.stringify(r.stderr)}`);
    for (const line of r.stderr.split('\n').filter(Boolean)) JSON.parse(line); // structured log lines only
  }
});

test('on a terminal, dwell import draws its progress line and ends with the tally', { skip: spawnSync('script', ['--version']).error ? 'no script(1) to give it a terminal' : false }, async () => {
  const out = path.join(cwd, 'stores/tty');
  // script(1) runs the command on a pseudo-terminal: stderr is a TTY, as in an operator's shell.
  const r = await run(['script', '-qec', `${process.execPath} ${CLI} import --format overture test/fixtures/venues/overture-places-sample.parquet --out ${out}`, '/dev/null']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\rimport overture \[done\] · 6 read · 5 venues · [\d,]+\/s · 100 % · \d+ s/);
  assert.doesNotMatch(r.stdout, /"msg":"import progress"/, 'no log lines on a terminal: the line says it');
});

test('a server on the imported Overture store finds the sample casino by its name and type', async () => {
  dwell = await startDwell({ DWELL_VENUES: path.join(cwd, 'stores/overture') });
  const app = await createApp(dwell.url);
  const casino = { lat: 43.7394, long: 7.4260 }; // sample-overture-1
  const data = [0, 5, 10, 15, 20].map((m, i) => ({
    timestamp: stampAfter('2024-05-06T12:00:00+02:00', m + 2),
    location: { lat: casino.lat + (i % 3 - 1) * 0.00002, long: casino.long + (i % 2) * 0.00002, accuracy: 10, speed: 0 },
  }));
  const r = await signed(dwell.url, app, '/v1/detect', {
    advertising_id: 'ad-parquet', events: [{ event_id: 'ev-1', type: 'visit', start_time: '2024-05-06T12:00:00+02:00', end_time: '2024-05-06T12:25:00+02:00', data }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const visit = r.body.data[0].visit;
  assert.equal(visit.place_id, 'sample-overture-1', JSON.stringify(visit));
  assert.equal(visit.place.venues[0].name, 'Sample Casino');
  assert.equal(visit.place.venues[0].sub_category, 'Casino');
});
