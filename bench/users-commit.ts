/**
 * What a detection's commit to the users environment costs with the environment's options
 * (users/env-options.ts: a writable map, `useWritemap`) against the same options without it,
 * in one run, the two taking turns round by round. Each environment is filled alike (seeded):
 * `--users` records of about 700 bytes and `--places` learned network places; a commit then does
 * what a request's does (users/store.ts): reads and writes one user's record, and reads and
 * writes `--learned` learned places at random keys, in one write transaction, noSync.
 *
 *   node dist/bench/users-commit.js [--users 20000] [--places 100000] [--learned 10] [--commits 3000] [--rounds 5] [--no-doc]
 *
 * Writes docs/performance.md, section "users-commit".
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import { USERS_ENV } from '../src/users/env-options.js';
import { tempDir } from '../src/devkit/temp-dir.js';
import { mulberry32 } from '../src/seeded.js';
import { readFlags } from '../src/devkit/flags.js';
import { median, medianRange } from './lib/stats.js';
import { writePerformanceSection } from './lib/perf-doc.js';

const argv = readFlags({
  users: { type: 'string', default: '20000' },
  places: { type: 'string', default: '100000' },
  learned: { type: 'string', default: '10' },
  commits: { type: 'string', default: '3000' },
  rounds: { type: 'string', default: '5' },
  'no-doc': { type: 'boolean' },
});
const users = Number(argv.users), places = Number(argv.places), learned = Number(argv.learned), commits = Number(argv.commits), rounds = Number(argv.rounds);

const APP = 'ak_bench';
const bssid = (i: number) => i.toString(16).padStart(12, '0').replace(/(..)(?!$)/g, '$1:');
/** A user record's shape and size (history of a day's stays, presence, last position). */
const record = (i: number, r: () => number) => ({
  v: 1, h: Array.from({ length: 12 }, (_, k) => [`v${Math.floor(r() * 1e6)}`, 1_790_000_000 + i * 60 + k * 3600, 1_790_000_900 + i * 60 + k * 3600, Math.round(r() * 1000) / 1000]),
  p: { fences: { inside: [], last: 1_790_000_000 } }, l: [43.7 + r() / 100, 7.4 + r() / 100, 1_790_000_000 + i],
});
/** A learned place with its box and witnesses (learned/shapes.ts ApPlace). */
const place = (r: () => number) => { const lat = 43.7 + r() / 100, lon = 7.4 + r() / 100; return [3, 3 * lat, 3 * lon, 3, lat, lat + 1e-4, lon, lon + 1e-4, Math.floor(r() * 2 ** 32)]; };

type Way = 'writemap' | 'copies';
const dir = tempDir('dwell-bench-users-commit-');
function fill(way: Way): RootDatabase {
  const root = open({ path: path.join(dir, way), ...USERS_ENV, useWritemap: way === 'writemap' } as never) as RootDatabase;
  const r = mulberry32(7);
  root.transactionSync(() => {
    for (let i = 0; i < users; i++) root.putSync(['u', APP, `user-${i}`], record(i, r));
    for (let i = 0; i < places; i++) root.putSync(['apx', APP, bssid(i)], place(r));
  });
  return root;
}
const envs: Record<Way, RootDatabase> = { writemap: fill('writemap'), copies: fill('copies') };

/** Process CPU µs a commit, `commits` commits with the same seeded keys for both ways. */
function run(way: Way, seed: number): number {
  const root = envs[way], r = mulberry32(seed);
  const c0 = process.cpuUsage();
  for (let n = 0; n < commits; n++) {
    root.transactionSync(() => {
      const key = ['u', APP, `user-${Math.floor(r() * users)}`];
      const rec = root.get(key) as ReturnType<typeof record>;
      rec.l[2]++;
      root.putSync(key, rec);
      for (let j = 0; j < learned; j++) {
        const k = ['apx', APP, bssid(Math.floor(r() * places))];
        const p = root.get(k) as number[];
        p[0]++; p[3]++;
        root.putSync(k, p);
      }
    });
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / commits;
}

run('writemap', 1); run('copies', 1); // warm-up: JIT, the maps' pages
const cpu: Record<Way, number[]> = { writemap: [], copies: [] };
for (let round = 0; round < rounds; round++) {
  for (const way of (round % 2 ? ['copies', 'writemap'] : ['writemap', 'copies']) as Way[]) cpu[way].push(run(way, 100 + round));
  process.stderr.write(`[users-commit] round ${round + 1} of ${rounds} done\n`);
}
const md = `A request's commit to the users environment (a user record read and written, ${learned} learned places at random keys read and written; ${users.toLocaleString('en-US')} users and ${places.toLocaleString('en-US')} places stored), ${commits} commits a round, ${rounds} rounds taking turns; process CPU µs a commit, median (min–max).\n\n` +
  `| users environment | CPU µs a commit |\n|---|---:|\n| writable map (\`useWritemap\`, users/env-options.ts) | ${medianRange(cpu.writemap, 1)} |\n| page copies written back (lmdb-js's default) | ${medianRange(cpu.copies, 1)} |\n\n` +
  `The writable map's cost against the copies': ${(median(cpu.writemap) / median(cpu.copies)).toFixed(2)} ×.`;
console.log(`\n${md}`);
writePerformanceSection('users-commit', md);
await Promise.all(Object.values(envs).map((e) => e.close()));
rmSync(dir, { recursive: true, force: true });
