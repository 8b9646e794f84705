/**
 * `dwell/client` as a customer gets it (issue 18 item 2): `npm pack`, the tarball installed into a
 * scratch project by npm, offline; two programs type-checked there with the repository's tsc
 * against the package's own declarations, then run against a live server.
 *
 * Offline: the npm cache on these machines does not hold the package's dependencies and there is
 * no network, so the scratch project's node_modules gets one symlink per dependency into the
 * repository's node_modules before `npm install --offline <tarball>`. npm then finds every
 * dependency already satisfied and installs the tarball itself as it would anywhere.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { dwellWithApp } from '../helpers/dwell.js';
import { ROOT, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const FIXTURES = path.join(ROOT, 'test/fixtures/client');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const server = dwellWithApp();
const scratch = tempDir('dwell-client-pack-');

test('npm pack: the tarball holds the client, its declarations and the exports map', async () => {
  // --ignore-scripts: the test runs on the build it was compiled from; `prepare` would rebuild.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--offline', '--json', '--pack-destination', scratch], { cwd: ROOT });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = new Set(packed.files.map((f) => f.path));
  for (const f of ['dist/src/client/index.js', 'dist/src/client/index.d.ts', 'dist/src/signing.d.ts', 'dist/src/cli.js', 'dist/openapi.json', 'dist/openapi.html', 'package.json']) {
    assert.ok(files.has(f), `${f} is in the tarball`);
  }
  assert.ok(![...files].some((f) => f.startsWith('test/') || f.startsWith('dist/test/') || f.startsWith('src/')), 'no tests or sources shipped');
  assert.ok(![...files].some((f) => /^dist\/(bench|src\/devkit|src\/research)\//.test(f)), 'no benchmarks, development kit or research tools shipped');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.exports['./client'], { types: './dist/src/client/index.d.ts', default: './dist/src/client/index.js' });
  assert.ok(existsSync(path.join(scratch, packed.filename)));
});

test('installed offline into a scratch project, the programs type-check with tsc against the declarations', async () => {
  const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  const deps = Object.keys(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies);
  const repoModules = realpathSync(path.join(ROOT, 'node_modules'));
  for (const name of deps) {
    const to = path.join(scratch, 'node_modules', name);
    mkdirSync(path.dirname(to), { recursive: true });
    symlinkSync(path.join(repoModules, name), to);
  }
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], { cwd: scratch });
  const installed = JSON.parse(readFileSync(path.join(scratch, 'node_modules/dwell/package.json'), 'utf8'));
  assert.equal(installed.name, 'dwell');
  assert.ok(!existsSync(path.join(scratch, 'node_modules/dwell/node_modules')), 'no dependency fetched beside it');

  for (const f of ['example.ts', 'check.ts']) copyFileSync(path.join(FIXTURES, f), path.join(scratch, f));
  writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out',
      types: ['node'], typeRoots: [path.join(repoModules, '@types')],
    },
    files: ['example.ts', 'check.ts'],
  }));
  const tsc = await run(process.execPath, [TSC, '-p', scratch]).catch((err) => err);
  assert.equal(tsc.code ?? 0, 0, `tsc in the scratch project:\n${tsc.stdout}${tsc.stderr}`);
});

test('the installed client against a live server: detect, geofence CRUD, export and erase, verifyPostback', async () => {
  const env = { ...process.env, DWELL_URL: server.url, DWELL_APP_KEY: server.app.app_key, DWELL_APP_SECRET: server.app.app_secret };
  const check = await run(process.execPath, [path.join(scratch, 'out/check.js')], { cwd: scratch, env });
  const result = JSON.parse(check.stdout.trim().split('\n').pop()!);
  assert.equal(result.ok, true);
  assert.equal(typeof result.place_id, 'string', 'the Monaco sample names a venue');
  assert.equal(result.erased.user_records, 1, `erased ${JSON.stringify(result.erased)}`);
});

test('the docs/client.md example runs as written', async () => {
  const env = { ...process.env, DWELL_URL: server.url, DWELL_APP_KEY: server.app.app_key, DWELL_APP_SECRET: server.app.app_secret };
  const { stdout } = await run(process.execPath, [path.join(scratch, 'out/example.js')], { cwd: scratch, env });
  const lines = stdout.trim().split('\n');
  assert.match(lines[0], /^venue: \S/);
  assert.deepEqual(lines.slice(1, 3), ['geofence: Welcome back', 'listed: 1']);
  assert.equal(lines[3], 'exported: 1');
  assert.match(lines[4], /^erased: \{"user_records":1,/);
  assert.equal(lines[5], 'gone: 404');
  // docs/client.md (linked from the README) shows this very program.
  const doc = readFileSync(path.join(ROOT, 'docs/client.md'), 'utf8');
  const shown = /^## Client library\n[\s\S]*?^```ts\n([\s\S]*?)^```/m.exec(doc)?.[1];
  assert.ok(shown !== undefined, 'docs/client.md has a "Client library" section with a ts block');
  assert.equal(shown, readFileSync(path.join(FIXTURES, 'example.ts'), 'utf8'), 'docs/client.md "Client library" example = test/fixtures/client/example.ts');
});
