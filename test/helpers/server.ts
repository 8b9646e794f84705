/**
 * Starts the real `dwell serve` as a child process on an ephemeral port, the way an operator
 * would, and talks to it over HTTP. Nothing of ours is mocked.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnService } from '../../bench/lib/child.js';

export { freePort } from '../../bench/lib/child.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI = path.join(ROOT, 'dist/src/cli.js');
export const ADMIN_TOKEN = 'test-admin-token';

export interface Running {
  url: string;
  port: number;
  proc: ChildProcess;
  dataDir: string;
  logs: string[];
  /** A cluster pair (cluster.ts): its nodes, for calls every node must get (moving the test clock, helpers/clock.ts). */
  nodes?: Running[];
  /** SIGTERM, and the exit code once the process has drained and left. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A scratch directory, removed when the test file's process exits (a restarted server may reuse it until then). */
export function tempDir(prefix = 'dwell-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * `args` follow `dwell serve` on its command line. With DWELL_TEST_CLUSTER=1 (npm run
 * test:cluster) and no DWELL_STATE of the test's own: two nodes on NATS behind a round-robin
 * proxy (cluster.ts), answering as one.
 */
export async function startDwell(env: Record<string, string> = {}, opts: { ready?: boolean; args?: string[] } = {}): Promise<Running> {
  if (process.env.DWELL_TEST_CLUSTER === '1' && env.DWELL_STATE === undefined) {
    const { startPair } = await import('./cluster.js');
    return startPair(env, opts);
  }
  const dataDir = env.DWELL_DATA_DIR ?? tempDir();
  const svc = await spawnService({
    name: 'dwell',
    command: process.execPath,
    args: [CLI, 'serve', ...(opts.args ?? [])],
    env: {
      ...process.env,
      PORT: '0',
      DWELL_HOST: '127.0.0.1',
      DWELL_DATA_DIR: dataDir,
      DWELL_ADMIN_TOKEN: ADMIN_TOKEN,
      // Two workers, so consecutive requests run on different threads (each with its own caches
      // and store snapshots), as in production.
      DWELL_WORKERS: '2',
      DWELL_POSTBACK_ALLOW_PRIVATE: 'true',
      // Ready without the workers' warm-up (server/pool.ts): it made about half of a start's CPU,
      // and the tests start ~100 servers. A test of the warm-up itself passes DWELL_WARM_UP: 'on'.
      DWELL_WARM_UP: 'off',
      ...env,
    },
    startTimeoutMs: 60_000,
    // Tests read the whole log (what was logged, and what never was).
    keepLogLines: Number.POSITIVE_INFINITY,
  });
  const { proc, port, url, logs } = svc;
  if (opts.ready !== false) await waitReady(url);
  return {
    url, port, proc, dataDir, logs,
    stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
      return new Promise((resolve) => {
        proc.once('exit', (code) => resolve(code));
        proc.kill(signal);
      });
    },
  };
}

export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      if ((await fetch(url + '/readyz')).status === 200) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}
