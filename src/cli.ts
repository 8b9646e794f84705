#!/usr/bin/env node
/**
 * The `dwell` command: serve | import | apps. Settings come from the environment or the same
 * names as flags (see `dwell help`).
 */
import { parseArgs } from 'node:util';
import { loadConfig, describeSettings } from './config.js';
import { log, setLogLevel } from './log.js';
import { runApps } from './cli-apps.js';
import { lockDataDir } from './data-dir-lock.js';

const USAGE = `dwell: venue detection and geofences

  dwell serve [--port N] [--data-dir DIR] [--venues DIR] ...
  dwell import --format osm|jsonl|tsmc <file> --out <store dir>
  dwell apps create --name NAME [--delivery sync|postback|bucket] [--url URL] [--provider s3|gcs --bucket B ...]
  dwell apps show <app_key>
  dwell apps update <app_key> [--name NAME] [--delivery ...]
  dwell apps rotate-secret <app_key>
  dwell apps deliveries <app_key> [--status pending|dead]
  dwell apps replay <app_key>

Settings (environment variable, or the flag beside it):
${describeSettings()}
  DWELL_URL                      --url-base                 the server the apps commands talk to (default http://127.0.0.1:$PORT)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({ args: rest, strict: false, allowPositionals: true });
  const flags = Object.fromEntries(Object.entries(values).map(([k, v]) => ['--' + k, String(v)]));
  switch (command) {
    case 'serve': {
      const config = loadConfig(flags);
      setLogLevel(config.logLevel);
      const { startServer } = await import('./server/app.js');
      // One server per data directory (the outbox's leases are in its memory): see data-dir-lock.ts.
      const lock = lockDataDir(config.dataDir);
      process.on('exit', () => lock.release());
      const server = await startServer(config);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info('signal received', { signal });
        server.close().then(() => process.exit(0), (err) => {
          log.error('shutdown failed', { error: String(err) });
          process.exit(1);
        });
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      return -1; // keep running
    }
    case 'import': {
      const { runImport } = await import('./venues/import/build.js');
      const format = String(values.format ?? '');
      const file = positionals[0] ?? (values.file as string | undefined);
      const out = values.out as string | undefined;
      if (!['osm', 'jsonl', 'tsmc'].includes(format) || !file || !out) {
        process.stderr.write('usage: dwell import --format osm|jsonl|tsmc <file> --out <store dir>\n');
        return 2;
      }
      const report = await runImport({ format: format as 'osm' | 'jsonl' | 'tsmc', file, out, quiet: values.quiet === true });
      process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      return 0;
    }
    case 'apps':
      return runApps(positionals, values as Record<string, string | boolean>);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
}, (err) => {
  process.stderr.write(`dwell: ${err?.message ?? err}\n`);
  process.exitCode = err?.exitCode ?? 1;
});
