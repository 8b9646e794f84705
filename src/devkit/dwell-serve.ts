/**
 * The one way tests and benchmarks start `dwell serve`: the built CLI as a child process of its
 * own, found by its `listening` log line (or told its port), killed when the caller exits. What
 * differs between callers (the environment, flags, the Node binary and its flags, how much log to
 * keep) is an option; what a node must be to count as started is decided here once.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnService, waitFor200, type Service } from './child.js';

/** The checkout (dist/src/devkit/ is three levels below it). */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The built command line, `dwell`. */
export const CLI = path.join(ROOT, 'dist/src/cli.js');

export interface ServeOptions {
  /** The child's whole environment (the caller decides what of its own to pass on). */
  env: NodeJS.ProcessEnv;
  /** Flags after `dwell serve`. */
  args?: string[];
  /** Another Node binary (bench:http:node24), and flags for Node itself (`--cpu-prof`, `--trace-gc`). */
  node?: string;
  nodeArgs?: string[];
  /** Another checkout's built CLI (bench:memory --baseline); this checkout's by default. */
  cli?: string;
  /** The port it was told (PORT in env); without it, the `listening` line says which. */
  port?: number;
  name?: string;
  startTimeoutMs?: number;
  keepLogLines?: number;
  onLine?: (line: string, arrivedMs: number) => void;
}

const command = (o: ServeOptions) => ({ command: o.node ?? process.execPath, args: [...(o.nodeArgs ?? []), o.cli ?? CLI, 'serve', ...(o.args ?? [])] });

/** `dwell serve`, started and listening (not yet ready: see `serveReady`). */
export function serveDwell(o: ServeOptions): Promise<Service> {
  return spawnService({
    name: o.name ?? 'dwell',
    ...command(o),
    env: o.env,
    port: o.port,
    startTimeoutMs: o.startTimeoutMs ?? 30_000,
    keepLogLines: o.keepLogLines,
    onLine: o.onLine,
  });
}

/** `dwell serve`, started and answering /readyz 200; stopped (and its last lines printed) if it never does. */
export async function serveReady(o: ServeOptions & { readyTimeoutMs?: number }): Promise<Service> {
  const svc = await serveDwell(o);
  try {
    await waitFor200(svc.url + '/readyz', o.readyTimeoutMs ?? 90_000, svc.proc);
  } catch (err) {
    await svc.stop(1000);
    throw new Error(`${(err as Error).message}\n[${svc.name}] last log lines:\n${svc.logs.slice(-20).join('\n')}`);
  }
  return svc;
}

/**
 * `dwell serve` expected to refuse to start: its exit code and what it wrote. One that starts
 * listening after all is killed at once (SIGKILL: its code is then null and `listened` true), as
 * is one still running after `timeoutMs`.
 */
export function serveRefusal(o: ServeOptions & { timeoutMs?: number }): Promise<{ code: number | null; output: string; listened: boolean }> {
  const { command: bin, args } = command(o);
  const proc = spawn(bin, args, { env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let listened = false;
  const onData = (c: Buffer) => {
    output += c.toString();
    if (!listened && output.includes('"msg":"listening"')) {
      listened = true;
      proc.kill('SIGKILL');
    }
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const guard = setTimeout(() => proc.kill('SIGKILL'), o.timeoutMs ?? 20_000);
  return new Promise((resolve) => proc.once('exit', (code) => {
    clearTimeout(guard);
    resolve({ code, output, listened });
  }));
}
