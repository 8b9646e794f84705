/**
 * The `dwell` command line (contract §6): `--flag value` and `--flag=value` alike for every
 * command, an unknown flag or one without its value refused by name with exit code 2, and
 * `dwell help` listing every flag the commands take. Runs the built dist/src/cli.js.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, startDwell, tempDir, type Running } from '../helpers/server.js';

const VENUES = path.join(ROOT, 'test/fixtures/venues/nyc-venues.jsonl');

interface Ran { code: number | null; stdout: string; stderr: string }

/** Runs `dwell args…` with none of the operator's settings in the environment but `env`. */
function dwell(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'PORT' && !k.startsWith('DWELL_')));
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  proc.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    // A `serve` that should have been refused started instead: stop it, so the test fails rather than hangs.
    if (stderr.includes('"msg":"listening"')) proc.kill();
  });
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** `{port: '0'}` as `--port 0` or as `--port=0`. */
const asFlags = (flags: Record<string, string>, form: 'space' | 'equals') =>
  Object.entries(flags).flatMap(([k, v]) => (form === 'space' ? [`--${k}`, v] : [`--${k}=${v}`]));

const FORMS = ['space', 'equals'] as const;

test('import reads --flag value and --flag=value alike', async () => {
  const dir = tempDir();
  try {
    for (const form of FORMS) {
      const out = path.join(dir, form);
      // --quiet first: a switch must not take the file after it as its value.
      const r = await dwell(['import', '--quiet', VENUES, ...asFlags({ format: 'jsonl', out }, form)]);
      assert.equal(r.code, 0, `import (${form}) exited ${r.code}: ${r.stderr}`);
      const report = JSON.parse(r.stdout);
      assert.equal(report.format, 'jsonl');
      assert.equal(report.out, out);
      assert.equal(report.venues, 22);
      assert.ok(existsSync(path.join(out, 'CURRENT')), 'the store has no CURRENT version');
      assert.equal(r.stderr, '', '--quiet still logged');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A server started with its settings as flags in each form, the environment saying otherwise
 * everywhere: started once, for the serve test to check and the apps test to talk to (each start
 * costs seconds of CPU).
 */
interface FlagServer { form: (typeof FORMS)[number]; server: Running; flagDir: string; envDir: string }
let flagServers: Promise<FlagServer[]> | undefined;
const startFlagServers = () => (flagServers ??= Promise.all(FORMS.map(async (form) => {
  const [flagDir, envDir] = [tempDir(), tempDir()];
  const args = asFlags({ port: '0', 'data-dir': flagDir, 'admin-token': 'flag-token', 'log-level': 'warn' }, form);
  // It starts only if the flags are read.
  const server = await startDwell({ PORT: 'not-a-port', DWELL_DATA_DIR: envDir, DWELL_ADMIN_TOKEN: 'env-token' }, { args });
  return { form, server, flagDir, envDir };
})));
after(async () => {
  for (const { server } of await (flagServers ?? Promise.resolve([]))) await server.stop();
});

test('serve reads --flag value and --flag=value alike, over the environment', async () => {
  for (const { form, server, flagDir } of await startFlagServers()) {
    assert.equal((await fetch(server.url + '/healthz')).status, 200);
    assert.ok(existsSync(path.join(flagDir, 'dwell.lock')), `--data-dir (${form}) not used`);
    const res = await fetch(server.url + '/admin/apps/ak_000000000000000000000000', { headers: { authorization: 'Bearer flag-token' } });
    assert.equal(res.status, 404, `--admin-token (${form}) not used: ${await res.text()}`);
  }
});

test('apps create and show read --flag value and --flag=value alike', async () => {
  const [{ server }] = await startFlagServers();
  for (const form of FORMS) {
    const url = `http://127.0.0.1:9/${form}`;
    const admin = { 'url-base': server.url, 'admin-token': 'flag-token' };
    const r = await dwell(['apps', 'create', ...asFlags({ name: `demo-${form}`, delivery: 'postback', url, 'confirm-dwell-s': '120', ...admin }, form)]);
    assert.equal(r.code, 0, `apps create (${form}) exited ${r.code}: ${r.stdout}${r.stderr}`);
    const app = JSON.parse(r.stdout);
    assert.match(app.app_key, /^ak_/);
    assert.equal(app.name, `demo-${form}`);
    assert.deepEqual(app.delivery, { method: 'postback', url });
    assert.equal(app.confirm_dwell_s, 120);
    const shown = await dwell(['apps', 'show', app.app_key, ...asFlags(admin, form)]);
    assert.equal(shown.code, 0, shown.stdout + shown.stderr);
    assert.equal(JSON.parse(shown.stdout).name, `demo-${form}`);
  }
});

test('an unknown flag, or a flag without its value, is refused by name with exit code 2', async () => {
  const dir = tempDir();
  const out = path.join(dir, 'store');
  const env = { PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: path.join(dir, 'data'), DWELL_WORKERS: '1' };
  try {
    const cases: [string[], string][] = [
      [['serve', '--prot', '0'], 'dwell serve: unknown flag --prot'],
      [['import', '--formt', 'jsonl', VENUES, '--out', out], 'dwell import: unknown flag --formt'],
      [['apps', 'create', '--nme', 'demo'], 'dwell apps create: unknown flag --nme'],
      [['serve', '--port'], 'dwell serve: flag --port needs a value'],
      [['import', VENUES, '--out', out, '--format'], 'dwell import: flag --format needs a value'],
      [['import', '--format', '--out', out, VENUES], 'dwell import: flag --format needs a value'],
    ];
    for (const [args, message] of cases) {
      const r = await dwell(args, env);
      assert.equal(r.code, 2, `dwell ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      assert.ok(r.stderr.includes(message), `dwell ${args.join(' ')}: expected "${message}" on stderr, got: ${r.stderr}`);
    }
    assert.ok(!existsSync(out), 'a refused import wrote a store');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('dwell help lists every flag, and each command takes the flags listed for it', async () => {
  const help = await dwell(['help']);
  assert.equal(help.code, 0);
  const expected = ['--port', '--data-dir', '--venues', '--admin-token', '--postback-allow-private', '--log-level',
    '--format', '--out', '--quiet', '--name', '--delivery', '--url', '--provider', '--bucket', '--prefix', '--region',
    '--endpoint', '--credentials', '--confirm-dwell-s', '--status', '--url-base'];
  for (const flag of expected) assert.match(help.stdout, new RegExp(`${flag}\\b`), `dwell help does not list ${flag}`);

  // Each "dwell <command> … [--flag VALUE]" line of the help, and for serve every setting's flag:
  // with --help the command line is parsed, so a listed flag it refused would fail here.
  const [commands, settings] = help.stdout.split(/^Settings/m);
  const listed = commands.replace(/\n {8}/g, ' ').split('\n').filter((l) => l.startsWith('  dwell '));
  assert.ok(listed.length >= 8, `expected the commands in dwell help:\n${help.stdout}`);
  for (const line of listed) {
    const command = line.trim().split(' ').slice(1).filter((w) => /^[a-z][a-z-]*$/.test(w));
    const flags = command[0] === 'serve' ? [...settings.matchAll(/^ {2}[A-Z_]+ +--([a-z-]+)/gm)].map((m) => [m[1], 'x'])
      : [...line.matchAll(/--([a-z-]+)(?: ([^\]\s-][^\]\s]*))?/g)].map((m) => [m[1], m[2]?.split('|')[0]]);
    assert.ok(flags.length > 0, `no flags listed for dwell ${command.join(' ')}`);
    const args = flags.flatMap(([k, v]) => (v === undefined ? [`--${k}`] : [`--${k}`, v]));
    const r = await dwell([...command, ...args, '--help']);
    assert.equal(r.code, 0, `dwell ${command.join(' ')} refused a flag its help lists: ${r.stderr}`);
  }
});
