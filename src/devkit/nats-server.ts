/**
 * Real `nats-server` processes with JetStream on free loopback ports, owned by the process that
 * starts them (Debian's /usr/sbin/nats-server; never the machine's shared one on 4222), their
 * storage in a temp dir removed at exit. `startNatsCluster(3)` gives a three-server cluster whose
 * servers can be stopped and restarted one by one. With `monitor`, each also serves its HTTP
 * monitoring endpoints (/varz, /jsz) on a port of its own: benchmarks read traffic there.
 * Used by the tests (test/helpers/nats-server.ts) and the benchmarks alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './child.js';

export { freePort };
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((p) => existsSync(p)) ?? 'nats-server';

export interface NatsNode {
  url: string;
  /** `http://127.0.0.1:PORT` of the monitoring endpoints, when started with `monitor`. */
  monitorUrl?: string;
  /** Where it keeps its JetStream files (a test reads their bytes). */
  readonly storeDir: string;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
  /** Kills the server (SIGKILL unless told otherwise) and waits for it to go. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same ports and storage. */
  start(): Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** `nats://a,nats://b,…`: what DWELL_STATE takes. */
  urls: string;
  stop(): Promise<void>;
  /** Lets the owning process exit while the servers run (they are killed when it exits). */
  detach(): void;
}

export interface NatsOptions {
  /** Serve /varz, /jsz… on a free port per server (`-m`). */
  monitor?: boolean;
}

/**
 * One server (`size` 1) or a cluster of `size` servers with routes to each other. A port found
 * free can be taken before the server binds it (by another file's server, or as the local port of
 * any outgoing connection on a busy machine): a start that fails is tried again on fresh ports.
 */
export async function startNatsCluster(size = 1, opts: NatsOptions = {}): Promise<NatsCluster> {
  for (let attempt = 1; ; attempt++) {
    const nodes = await natsNodes(size, opts);
    const started = await Promise.allSettled(nodes.map((n) => n.start()));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (!failed) return owned(nodes, size);
    await Promise.all(nodes.map((n) => n.stop()));
    for (const n of nodes) n.removeStore();
    if (attempt === START_ATTEMPTS) throw failed.reason;
  }
}

const START_ATTEMPTS = 3;

async function natsNodes(size: number, opts: NatsOptions): Promise<OwnedNode[]> {
  const ports = await Promise.all(Array.from({ length: size }, async () => ({
    client: await freePort(), route: await freePort(), monitor: opts.monitor ? await freePort() : undefined,
  })));
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  return ports.map((p, i) => natsNode(i, p.client, p.monitor, size > 1 ? ['--cluster_name', 'dwell-test', '--cluster', `nats://127.0.0.1:${p.route}`, '--routes', routes] : []));
}

async function owned(nodes: OwnedNode[], size: number): Promise<NatsCluster> {
  if (size > 1) await new Promise((r) => setTimeout(r, 1_500)); // a JetStream meta leader is elected
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => n.stop('SIGTERM')));
    for (const n of nodes) n.removeStore();
  };
  process.once('exit', () => { for (const n of nodes) { n.kill(); n.removeStore(); } });
  const detach = () => { for (const n of nodes) n.detach(); };
  return { nodes, urls: nodes.map((n) => n.url).join(','), stop, detach };
}

type OwnedNode = NatsNode & { kill(): void; detach(): void; removeStore(): void };

function natsNode(i: number, port: number, monitor: number | undefined, clusterArgs: string[]): OwnedNode {
  const storeDir = mkdtempSync(path.join(tmpdir(), 'dwell-nats-'));
  let proc: ChildProcess | null = null;
  const args = ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port), '-n', `n${i}`, ...(monitor ? ['-m', String(monitor)] : []), ...clusterArgs];
  return {
    url: `nats://127.0.0.1:${port}`,
    storeDir,
    monitorUrl: monitor ? `http://127.0.0.1:${monitor}` : undefined,
    get pid() { return proc && proc.exitCode === null && proc.signalCode === null ? proc.pid : undefined; },
    kill: () => { proc?.kill('SIGKILL'); },
    removeStore: () => rmSync(storeDir, { recursive: true, force: true }),
    detach: () => { proc?.unref(); (proc?.stderr as unknown as { unref?(): void } | null)?.unref?.(); },
    start() {
      return new Promise<void>((resolve, reject) => {
        const p = spawn(NATS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        proc = p;
        let out = '';
        const timer = setTimeout(() => reject(new Error(`nats-server did not start within 10 s:\n${out}`)), 10_000);
        p.stderr!.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('Server is ready')) { clearTimeout(timer); resolve(); }
        });
        p.once('exit', (code) => { clearTimeout(timer); if (!out.includes('Server is ready')) reject(new Error(`nats-server exited with ${code}:\n${out}`)); });
      });
    },
    stop(signal: NodeJS.Signals = 'SIGKILL') {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => { p.once('exit', () => resolve()); p.kill(signal); });
    },
  };
}
