/**
 * A postback receiver for the delivery benchmarks: answers 200 to everything and counts distinct
 * X-Trigger-Ids and attempts. It runs in a child process so that its CPU is not counted as the
 * sender's; the counts arrive every 20 ms over IPC.
 */
import { spawn } from 'node:child_process';
import { atExit } from '../../src/devkit/child.js';

export interface TriggerReceiver {
  url: string;
  /** Distinct trigger ids seen (`first`) and requests received (`attempts`), as last reported. */
  state: { first: number; attempts: number };
  pid: number;
  close(): void;
}

const CODE = `import http from 'node:http';
  const seen = new Set(); let attempts = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.on('data', () => {});
    req.on('end', () => { attempts++; seen.add(req.headers['x-trigger-id']); res.writeHead(200).end(); });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  setInterval(() => process.send({ first: seen.size, attempts }), 20);
  process.on('disconnect', () => process.exit(0));`;

export async function startTriggerReceiver(): Promise<TriggerReceiver> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CODE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  atExit(() => child.kill('SIGKILL'));
  const state = { first: 0, attempts: 0 };
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: { port?: number; first?: number; attempts?: number }) => (m.port ? resolve(m.port) : Object.assign(state, m)));
    child.once('exit', (c) => reject(new Error(`receiver exited with ${c}`)));
  });
  return { url: `http://127.0.0.1:${port}/hook`, state, pid: child.pid!, close: () => child.kill() };
}
