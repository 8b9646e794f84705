/**
 * `dwell serve` as a benchmark's child process: its own temp data directory (removed when it
 * stops or the benchmark exits), a free loopback port, logs at warn, and the tunables an operator
 * may want to vary from the shell passed through; everything else of the caller's DWELL_*
 * environment is left out, so a run measures what it says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atExit, freePort, spawnService, waitFor200, type Service } from './child.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DWELL_CLI = path.join(ROOT, 'dist/src/cli.js');

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
  const svc = await spawnService({ name: o.name, command: process.execPath, args: [...(o.nodeArgs ?? []), DWELL_CLI, 'serve'], env, port, startTimeoutMs: 30_000 });
  const close = async () => {
    const code = await svc.stop();
    removeDataDir();
    unregister();
    return code;
  };
  try {
    await waitFor200(svc.url + '/readyz', o.readyTimeoutMs ?? 90_000, svc.proc);
  } catch (err) {
    process.stderr.write(`[${o.name}] last log lines:\n${svc.logs.slice(-20).join('\n')}\n`);
    await close();
    throw err;
  }
  return { ...svc, close };
}
