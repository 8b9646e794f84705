/** Test support for secrets at rest: keys, reading every byte a store left on disk, the CLI, a postback receiver that checks signatures. */
import { randomBytes, createHmac, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CLI } from './server.js';
import { signed, type TestApp } from './client.js';
import { visitRequest } from './requests.js';

/** A key as an operator makes one (`openssl rand -base64 32`). */
export const newKey = () => randomBytes(32).toString('base64');

/** Which of `needles` occur anywhere in the files under `dir` (every file, every byte). */
export function foundIn(dir: string, needles: string[]): string[] {
  const bytes: Buffer[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p); else bytes.push(readFileSync(p));
    }
  };
  walk(dir);
  return needles.filter((n) => bytes.some((b) => b.includes(Buffer.from(n, 'utf8'))));
}

/** A visit of a user of its own, so that no two requests sign alike (a replay is refused cluster-wide). */
export const freshVisit = () => ({ ...visitRequest(), request_id: randomUUID(), user_id: randomUUID() });

/** A signed detection with this secret (the app's by default): its HTTP status. */
export async function detectStatus(url: string, app: TestApp, secret = app.app_secret): Promise<number> {
  return (await signed(url, app, '/v1/detect', freshVisit(), { secret })).status;
}

/** `dwell …` run to its end. */
export function dwellCli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Answers 200 to every postback and records whether its signature (contract §3) holds for `secret()`. */
export async function signatureReceiver(secret: () => string) {
  const results: boolean[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const q = new URL(req.url!, 'http://x').searchParams;
      const want = createHmac('sha256', secret()).update(`${q.get('timestamp')}.`).update(Buffer.concat(chunks)).digest('hex');
      results.push(q.get('signature') === want);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, results,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}
