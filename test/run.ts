/**
 * `npm test` after the build: the four suites, every file run even when an earlier one failed (a
 * red unit test must not hide the cluster suite), then one closing line a suite and the slowest
 * files, named. Each file is a `node --test` process of its own, its output printed whole when it
 * ends. End-to-end files own their servers on free ports, so they run side by side
 * (`--concurrency`, 3 by default); unit, state and cluster files run one at a time each, but beside
 * the end-to-end files. The cluster suite is seven end-to-end files again with DWELL_TEST_CLUSTER=1,
 * against two nodes on a JetStream cluster. `--also-node <binary>` runs the end-to-end suite a
 * second time on that Node, with the native modules' test, in the same pool (.ci/run: Node 24).
 *
 *   node dist/test/run.js [--suite unit,state,e2e,cluster] [--concurrency N] [--node <binary>] [--also-node <binary>] [--only a,b]
 */
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(new URL('.', import.meta.url));
const filesIn = (dir: string) => readdirSync(join(here, dir)).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(here, dir, f));

/** The end-to-end files that also run against a cluster (contract §8: any node answers as one would). */
export const CLUSTER_FILES = [
  'api-detect', 'api-users-history', 'geofences-api', 'api-replay', 'privacy-erase', 'beacons-api', 'api-visit-feedback',
  'geofences-bulk', 'api-place-triggers', 'privacy-postback', 'privacy-retention', 'integrity-drop',
];

/**
 * Started first so that the pool does not end on one long file: the slowest end-to-end files of
 * a full run (the runner's closing list; `--suite e2e --concurrency 2`, 2026-11-26), slowest first,
 * and the browser tests.
 */
const LONG_FIRST = [
  'api-errors', 'secrets-at-rest', 'secrets-cluster', 'client-pack', 'secrets-rotate', 'postback-crash', 'cli-flags',
  'cluster-delivery', 'upgrade-fixture', 'cli-readme', 'explorer-ui', 'openapi-client', 'backup-restore',
];
const rank = (file: string) => {
  const i = LONG_FIRST.indexOf(basename(file, '.test.js'));
  return i < 0 ? LONG_FIRST.length : i;
};

interface Suite { name: string; files: () => string[]; env?: Record<string, string>; parallel: (n: number) => number }

// In the order they take free places in the pool: the three that run one file at a time first, so
// that they run beside the end-to-end files rather than after them.
const SUITES: Suite[] = [
  // bench/test/: the benchmarks' own pure parts (reports, projections, the performance.md writer).
  { name: 'unit', files: () => [...filesIn('.'), ...filesIn('../bench/test')], parallel: () => 1 },
  { name: 'state', files: () => filesIn('state'), parallel: () => 1 },
  { name: 'cluster', files: () => CLUSTER_FILES.map((f) => join(here, 'e2e', `${f}.test.js`)), env: { DWELL_TEST_CLUSTER: '1' }, parallel: () => 1 },
  { name: 'e2e', files: () => filesIn('e2e').sort((a, b) => rank(a) - rank(b)), parallel: (n) => n },
];
/** `--also-node`: the end-to-end files and the native modules' test on another Node. */
const ALSO: Suite = {
  name: 'e2e', files: () => [...SUITES[3].files(), join(here, 'native-modules.test.js')], parallel: (n) => n,
};

interface Group { label: string; suite: Suite; node: string; pending: string[]; running: number; parallel: number; t0: number; ms: number; failed: string[] }
interface Done { group: Group; file: string; ms: number; ok: boolean; output: string }

/** One file in its own `node --test` process; its output kept and printed once it has ended. */
function runFile(group: Group, file: string): Promise<Done> {
  const t0 = Date.now();
  // --test-force-exit: a file whose test failed before stopping its server still ends (its servers
  // are killed as it exits: src/devkit/child.ts) instead of holding the run open on their pipes.
  const child = spawn(group.node, ['--test', '--test-force-exit', '--test-reporter=spec', file], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...group.suite.env },
  });
  const out: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => out.push(b));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const ms = Date.now() - t0;
      const ok = code === 0;
      process.stdout.write(`\n# ${group.label} ${relative(here, file)}: ${ok ? 'passed' : 'FAILED'} in ${(ms / 1000).toFixed(1)} s\n`);
      const output = Buffer.concat(out).toString();
      process.stdout.write(output);
      resolve({ group, file, ms, ok, output });
    });
  });
}

/** Runs every group's files, at most `concurrency` at once and at most `group.parallel` of a group. */
async function pool(groups: Group[], concurrency: number): Promise<Done[]> {
  const done: Done[] = [];
  let running = 0;
  return new Promise((resolve) => {
    const next = () => {
      for (const g of groups) {
        while (running < concurrency && g.running < g.parallel && g.pending.length) {
          const file = g.pending.shift()!;
          running++;
          g.running++;
          if (!g.t0) g.t0 = Date.now();
          void runFile(g, file).then((d) => {
            running--;
            g.running--;
            g.ms = Date.now() - g.t0;
            if (!d.ok) g.failed.push(relative(here, d.file));
            done.push(d);
            next();
          });
        }
      }
      if (running === 0 && groups.every((g) => !g.pending.length)) resolve(done);
    };
    next();
  });
}

/**
 * A failed file's reasons once more at the very end, where a CI log's tail shows them: from the
 * spec reporter's closing "failing tests" list (the whole output's end if it has none: a crash).
 */
function failures(d: Done): string {
  const at = d.output.lastIndexOf('failing tests:');
  const text = at >= 0 ? d.output.slice(at) : d.output;
  const CAP = 4_000;
  const shown = text.length > CAP ? `${text.slice(0, CAP)}\n… (${text.length - CAP} characters more: the file's whole output is printed above)` : text;
  return `# ${d.group.label} ${relative(here, d.file)} FAILED:\n${shown.trimEnd()}\n\n`;
}

async function main() {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', default: SUITES.map((s) => s.name).join(',') },
      // Files at once: most of a file's time is waiting (servers starting, NATS's ack timers, real
      // backoffs), so three keep 2 cores busy (e2e on Node 20: 307 CPU-s in 369 s at two).
      concurrency: { type: 'string', default: process.env.DWELL_TEST_CONCURRENCY ?? '3' },
      node: { type: 'string', default: process.execPath },
      'also-node': { type: 'string' },
      // Some files only, by name (`api-detect,openapi`), in whichever suites hold them.
      only: { type: 'string' },
    },
  });
  const wanted = values.suite.split(',');
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) throw new Error(`--suite: expected some of ${SUITES.map((s) => s.name).join(', ')}, got ${unknown.join(', ')}`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency: expected a whole number ≥ 1, got ${values.concurrency}`);
  const only = values.only?.split(',');
  const picked = (files: string[]) => (only ? files.filter((f) => only.includes(basename(f, '.test.js'))) : files);
  const group = (suite: Suite, node: string, label: string): Group => ({
    label, suite, node, pending: picked(suite.files()), running: 0, parallel: suite.parallel(concurrency), t0: 0, ms: 0, failed: [],
  });
  const groups = SUITES.filter((s) => wanted.includes(s.name)).map((s) => group(s, values.node, s.name));
  if (values['also-node']) {
    const version = execFileSync(values['also-node'], ['--version']).toString().trim();
    groups.push(group(ALSO, values['also-node'], `e2e@${version}`));
  }
  for (const g of groups) process.stdout.write(`# suite ${g.label}: ${g.pending.length} files, ${g.parallel} at a time\n`);
  const t0 = Date.now();
  const done = await pool(groups, concurrency);
  process.stdout.write('\n');
  for (const d of done.filter((x) => !x.ok)) process.stdout.write(failures(d));
  for (const g of groups) {
    process.stdout.write(`# suite ${g.label}: ${g.failed.length ? `FAILED (${g.failed.join(', ')})` : 'passed'} in ${(g.ms / 1000).toFixed(0)} s\n`);
  }
  const slowest = done.sort((a, b) => b.ms - a.ms).slice(0, 10);
  process.stdout.write(`# slowest files: ${slowest.map((d) => `${d.group.label} ${basename(d.file, '.test.js')} ${(d.ms / 1000).toFixed(0)} s`).join(', ')}\n`);
  process.stdout.write(`# all in ${((Date.now() - t0) / 1000).toFixed(0)} s, ${concurrency} files at a time\n`);
  process.exitCode = groups.every((g) => !g.failed.length) ? 0 : 1;
}

await main().catch((err: Error) => {
  process.stderr.write(`test/run: ${err.message}\n`);
  process.exitCode = 2;
});
