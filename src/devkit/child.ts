/**
 * Child processes for tests and benchmarks: a server started as its own process, found by the JSON
 * line `{"msg":"listening","port":N}` it writes (stderr or stdout) or by a port given to it, and
 * always killed when the test or benchmark exits, fails or is interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { wallNow, monotonicMs } from '../time/wall.js';

const live = new Set<ChildProcess>();
const cleanups = new Set<() => void>();
let hooked = false;

/** Runs `fn` (synchronous) when the process exits, however it exits; answers an unregister function. */
export function atExit(fn: () => void): () => void {
  hookExit();
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // 'exit' handlers must be synchronous: SIGKILL whatever is still running.
  process.on('exit', () => {
    for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const fn of cleanups) {
      try {
        fn();
      } catch { /* best effort */ }
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping ${live.size} child process(es)\n`);
      void killAll().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
}

/** SIGKILLs every live child and waits (at most `timeoutMs`) until they are gone. */
export function killAll(timeoutMs = 3000): Promise<void> {
  const waits = [...live].map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  }));
  return Promise.race([Promise.all(waits).then(() => {}), new Promise<void>((r) => setTimeout(r, timeoutMs).unref())]);
}

export interface Service {
  name: string;
  proc: ChildProcess;
  port: number;
  url: string;
  /** The last lines the child wrote (stdout and stderr), for diagnostics. */
  logs: string[];
  /** SIGTERM; SIGKILL if it has not left after `graceMs`. Answers the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** A port the child was told to use; without it, the child must announce its port. */
  port?: number;
  startTimeoutMs?: number;
  keepLogLines?: number;
  /** Sees every line the child writes (stdout and stderr), with its arrival time (ms since the epoch). */
  onLine?: (line: string, arrivedMs: number) => void;
}

/** A free loopback port (bound then released; another process could take it in between). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function spawnService(opts: SpawnOptions): Promise<Service> {
  hookExit();
  const keep = opts.keepLogLines ?? 200;
  const proc = spawn(opts.command, opts.args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  const logs: string[] = [];
  let announce: ((port: number) => void) | null = null;

  const onLines = () => {
    let buffered = '';
    return (chunk: Buffer) => {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        opts.onLine?.(line, wallNow());
        logs.push(line);
        if (logs.length > keep) logs.shift();
        if (announce && line.startsWith('{')) {
          try {
            const entry = JSON.parse(line);
            if (entry.msg === 'listening' && Number.isInteger(entry.port)) announce(entry.port);
          } catch { /* not JSON */ }
        }
      }
    };
  };
  proc.stdout!.on('data', onLines());
  proc.stderr!.on('data', onLines());

  const stop = (graceMs = 10_000): Promise<number | null> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
    return new Promise((resolve) => {
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      proc.kill('SIGTERM');
    });
  };

  return new Promise<Service>((resolve, reject) => {
    const done = (port: number) => {
      clearTimeout(timer);
      announce = null;
      proc.off('exit', onEarlyExit);
      resolve({ name: opts.name, proc, port, url: `http://127.0.0.1:${port}`, logs, stop });
    };
    const timer = setTimeout(() => {
      void stop(1000);
      reject(new Error(`${opts.name} did not announce its port within ${opts.startTimeoutMs ?? 30_000} ms:\n${logs.slice(-20).join('\n')}`));
    }, opts.startTimeoutMs ?? 30_000);
    const onEarlyExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`${opts.name} exited (${signal ?? code}) before it was listening:\n${logs.slice(-20).join('\n')}`));
    };
    proc.once('exit', onEarlyExit);
    proc.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (opts.port !== undefined) {
      const port = opts.port;
      // Told its port: resolve at once; the caller polls a health endpoint for readiness.
      setImmediate(() => proc.exitCode === null && done(port));
    } else {
      announce = done;
    }
  });
}

/** Polls `url` until it answers 200 (bounded by timeoutMs). */
export async function waitFor200(url: string, timeoutMs = 60_000, proc?: ChildProcess): Promise<void> {
  const end = monotonicMs() + timeoutMs;
  let last = '';
  while (monotonicMs() < end) {
    if (proc && (proc.exitCode !== null || proc.signalCode !== null)) throw new Error(`process exited while waiting for ${url}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      last = `${res.status} ${(await res.text()).slice(0, 200)}`;
      if (res.status === 200) return;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not 200 after ${timeoutMs} ms (last: ${last})`);
}
