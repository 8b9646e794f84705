/**
 * One real `dwell serve` as a child process on an ephemeral port, with the tests' defaults, the
 * way an operator would start it. The launcher is the development kit's (src/devkit/dwell-serve.ts),
 * shared with the benchmarks. Tests start servers through server.ts `startDwell`, which makes it a
 * cluster pair under `npm run test:cluster`.
 */
import type { ChildProcess } from 'node:child_process';
import { serveDwell } from '../../src/devkit/dwell-serve.js';
import { tempDir } from '../../src/devkit/temp-dir.js';

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

/** One `dwell serve` with the tests' defaults; `args` follow `dwell serve` on its command line. */
export async function startNode(env: Record<string, string> = {}, opts: { ready?: boolean; args?: string[] } = {}): Promise<Running> {
  const dataDir = env.DWELL_DATA_DIR ?? tempDir();
  const svc = await serveDwell({
    args: opts.args,
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
