#!/usr/bin/env node
/**
 * The `dwell` command: serve | import | apps | backup | restore | secrets. Settings come from the environment or the same
 * names as flags (see `dwell help`).
 */
import { loadConfig } from './config.js';
import { log, setLogLevel } from './log.js';
import { runApps } from './cli-apps.js';
import { parseCommandLine, usage, UsageError } from './cli-flags.js';
import { lockDataDir } from './data-dir-lock.js';

async function main(argv: string[]): Promise<number> {
  const { command, values, positionals } = parseCommandLine(argv);
  switch (command) {
    case 'serve': {
      const config = loadConfig(Object.fromEntries(Object.entries(values).map(([k, v]) => ['--' + k, String(v)])));
      setLogLevel(config.logLevel);
      const { startServer } = await import('./server/app.js');
      // One server per data directory (the outbox's leases are in its memory): see data-dir-lock.ts.
      const lock = lockDataDir(config.dataDir);
      process.on('exit', () => lock.release());
      // Stamped, refused if newer, migrated if older, before any store opens it (ops/migrations.ts).
      await (await import('./ops/migrations.js')).openDataDir(config.dataDir);
      // Handlers before the server starts: a signal that arrives while it starts (or just after
      // `listening`, before this function went on) is answered by a clean drain once it is up,
      // never by Node's default of dying with no exit code.
      let stopping = false;
      let started: Awaited<ReturnType<typeof startServer>> | null = null;
      const drain = (server: NonNullable<typeof started>) => server.close().then(() => process.exit(0), (err) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      });
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info('signal received', { signal });
        if (started) void drain(started);
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      started = await startServer(config);
      if (stopping) void drain(started);
      return -1; // keep running
    }
    case 'import': {
      const { runImport } = await import('./venues/import/build.js');
      const { format, out, quiet, publish } = values as { format: 'osm' | 'jsonl' | 'tsmc'; out: string; quiet?: true; publish?: string };
      const state = publish === undefined ? undefined : loadConfig({ '--state': publish }).state; // validated before the import runs
      if (state?.kind === 'lmdb') throw new UsageError('dwell import: --publish takes the NATS URLs of a cluster (nats://h1:4222,…)');
      const report = await runImport({ format, file: positionals[0], out, quiet: quiet === true });
      const published = state ? await (await import('./venues/import/publish.js')).publishStore(state.servers, report.out, report.version, quiet === true) : undefined;
      process.stdout.write(JSON.stringify(published ? { ...report, published } : report, null, 2) + '\n');
      return 0;
    }
    case 'backup': {
      const config = loadConfig(settingValues(values, ['data-dir', 'state']));
      if (config.state.kind !== 'lmdb') throw new (await import('./ops/cluster.js')).ClusterBackup(config.state.servers);
      const manifest = await (await import('./ops/backup.js')).backupDataDir(config.dataDir, values.out as string);
      process.stdout.write(JSON.stringify({ out: values.out, ...manifest }, null, 2) + '\n');
      return 0;
    }
    case 'restore': {
      const config = loadConfig(settingValues(values, ['data-dir']));
      const manifest = await (await import('./ops/restore.js')).restoreDataDir(positionals[0], config.dataDir, { force: values.force === true });
      const { files: _files, ...summary } = manifest;
      process.stdout.write(JSON.stringify({ restored: config.dataDir, from: positionals[0], ...summary }, null, 2) + '\n');
      return 0;
    }
    case 'secrets rotate-key':
      return (await import('./cli-secrets.js')).rotateKey(values);
    case 'help':
      process.stdout.write(usage());
      return 0;
    default: // apps create, apps show, …
      return runApps(command.slice('apps '.length), positionals[0], values);
  }
}

/** The settings among a command's flags, as loadConfig takes them. */
function settingValues(values: Record<string, string | true>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => typeof values[n] === 'string').map((n) => ['--' + n, values[n] as string]));
}

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
}, (err) => {
  const usageHint = err instanceof UsageError ? '\n(`dwell help` lists every command and flag)' : '';
  process.stderr.write(`${err instanceof UsageError ? '' : 'dwell: '}${err?.message ?? err}${usageHint}\n`);
  process.exitCode = err?.exitCode ?? 1;
});
