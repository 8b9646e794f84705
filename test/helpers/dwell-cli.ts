/** Test support: runs one `dwell …` command (the built CLI) as an operator would, to its exit. */
import { spawn } from 'node:child_process';
import { CLI } from './server.js';

export interface CliResult { code: number | null; stdout: string; stderr: string }

/**
 * `env` is added to a process environment without any DWELL_* setting of the test runner's; a
 * `serve` starts without the workers' warm-up (helpers/server.ts says why). A command still running
 * after `timeoutMs` (a server that should have refused to start) is killed: code null.
 */
export function dwell(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DWELL_')));
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...base, DWELL_WORKERS: '1', DWELL_WARM_UP: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const guard = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => proc.once('close', (code) => {
    clearTimeout(guard);
    resolve({ code, stdout, stderr });
  }));
}

/** A receiver of postbacks: while closed it holds every request open unanswered (as a hung receiver does); open() answers them all 200. */
export async function holdingReceiver() {
  const http = await import('node:http');
  const held: import('node:http').ServerResponse[] = [];
  const arrivals: Array<{ id: string; body: any; open: boolean }> = [];
  let open = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      arrivals.push({ id: String(req.headers['x-trigger-id']), body: JSON.parse(Buffer.concat(chunks).toString() || 'null'), open });
      if (open) res.writeHead(200).end();
      else held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    open() {
      open = true;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end();
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
