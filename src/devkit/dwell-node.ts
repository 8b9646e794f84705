/**
 * `dwell serve` as a benchmark's child process: its own temp data directory (removed when it
 * stops or the benchmark exits), a free loopback port, logs at warn, and the tunables an operator
 * may want to vary from the shell passed through; everything else of the caller's DWELL_*
 * environment is left out, so a run measures what it says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { atExit, freePort, type Service } from './child.js';
import { serveReady } from './dwell-serve.js';

export const PASSED_THROUGH = ['DWELL_WORKERS', 'DWELL_WORKER_TASKS', 'DWELL_VENUES', 'DWELL_MAX_QUEUE', 'DWELL_RECENT_COUNT'];

export interface DwellNode extends Service {
  /** Stops the process and removes its data directory. */
  close(): Promise<number | null>;
}

export interface NodeOptions {
  name: string;
  /** DWELL_STATE: `lmdb` or the NATS URLs. */
  state: string;
  adminToken: string;
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  /** Settings of this run on top of the defaults (DWELL_WORKERS, DWELL_VENUES, …). */
  env?: NodeJS.ProcessEnv;
}

export async function startDwellNode(o: NodeOptions): Promise<DwellNode> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dwell-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const unregister = atExit(removeDataDir);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DWELL_') && k !== 'PORT') env[k] = v;
  for (const k of PASSED_THROUGH) if (process.env[k]) env[k] = process.env[k];
  Object.assign(env, {
    PORT: String(port),
    DWELL_HOST: '127.0.0.1',
    DWELL_DATA_DIR: dataDir,
    DWELL_ADMIN_TOKEN: o.adminToken,
    DWELL_LOG_LEVEL: 'warn',
    DWELL_STATE: o.state,
  });
  Object.assign(env, o.env);
  try {
    const svc = await serveReady({ name: o.name, nodeArgs: o.nodeArgs, env, port, readyTimeoutMs: o.readyTimeoutMs });
    const close = async () => {
      const code = await svc.stop();
      removeDataDir();
      unregister();
      return code;
    };
    return { ...svc, close };
  } catch (err) {
    removeDataDir();
    unregister();
    throw err;
  }
}
