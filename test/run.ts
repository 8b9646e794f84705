/**
 * `npm test` after the build: the four suites, each a `node --test` run of its own files, every
 * suite run even when an earlier one failed (a red unit test must not hide the cluster suite), and
 * one closing line over all of them. End-to-end files own their servers on free ports, so they
 * run side by side (`--concurrency`); the cluster suite is the same end-to-end files again with
 * DWELL_TEST_CLUSTER=1, against two nodes on a JetStream cluster.
 *
 *   node dist/test/run.js [--suite unit,state,e2e,cluster] [--concurrency N] [--node <binary>]
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(new URL('.', import.meta.url));
const filesIn = (dir: string) => readdirSync(join(here, dir)).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(here, dir, f));

/** The end-to-end files that also run against a cluster (contract §8: any node answers as one would). */
export const CLUSTER_FILES = [
  'api-detect', 'api-users-history', 'geofences-api', 'api-replay', 'privacy-erase', 'beacons-api', 'api-visit-feedback',
];

interface Suite { name: string; files: () => string[]; env?: Record<string, string>; concurrency: (n: number) => number }

const SUITES: Suite[] = [
  { name: 'unit', files: () => filesIn('.'), concurrency: () => 1 },
  { name: 'state', files: () => filesIn('state'), concurrency: () => 1 },
  { name: 'e2e', files: () => filesIn('e2e'), concurrency: (n) => n },
  { name: 'cluster', files: () => CLUSTER_FILES.map((f) => join(here, 'e2e', `${f}.test.js`)), env: { DWELL_TEST_CLUSTER: '1' }, concurrency: () => 1 },
];

function run(node: string, suite: Suite, concurrency: number): Promise<{ ok: boolean; ms: number }> {
  const t0 = Date.now();
  // --test-force-exit: a file whose test failed before stopping its server still ends (its servers
  // are killed as it exits: bench/lib/child.ts) instead of holding the suite open on their pipes.
  const args = ['--test', '--test-force-exit', `--test-concurrency=${suite.concurrency(concurrency)}`, ...suite.files()];
  process.stdout.write(`\n# suite ${suite.name}: ${args.length - 3} files, concurrency ${suite.concurrency(concurrency)}\n`);
  return new Promise((resolve) => {
    const child = spawn(node, args, { stdio: 'inherit', env: { ...process.env, ...suite.env } });
    child.on('exit', (code) => resolve({ ok: code === 0, ms: Date.now() - t0 }));
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', default: SUITES.map((s) => s.name).join(',') },
      // Two end-to-end files at once keep 2 cores busy: most of a file's time is servers starting and waiting.
      concurrency: { type: 'string', default: process.env.DWELL_TEST_CONCURRENCY ?? String(Math.max(2, Math.min(4, availableParallelism()))) },
      node: { type: 'string', default: process.execPath },
    },
  });
  const wanted = values.suite.split(',');
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) throw new Error(`--suite: expected some of ${SUITES.map((s) => s.name).join(', ')}, got ${unknown.join(', ')}`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency: expected a whole number ≥ 1, got ${values.concurrency}`);
  const results: Array<[string, { ok: boolean; ms: number }]> = [];
  for (const suite of SUITES.filter((s) => wanted.includes(s.name))) results.push([suite.name, await run(values.node, suite, concurrency)]);
  process.stdout.write('\n');
  for (const [name, r] of results) process.stdout.write(`# suite ${name}: ${r.ok ? 'passed' : 'FAILED'} in ${(r.ms / 1000).toFixed(0)} s\n`);
  process.exitCode = results.every(([, r]) => r.ok) ? 0 : 1;
}

await main().catch((err: Error) => {
  process.stderr.write(`test/run: ${err.message}\n`);
  process.exitCode = 2;
});
