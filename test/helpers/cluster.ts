/**
 * The contract's e2e tests against a cluster (contract §8), unchanged: with DWELL_TEST_CLUSTER=1,
 * `startDwell` starts two `dwell serve` nodes (data directories of their own) on one NATS server
 * owned by this test process, behind a round-robin proxy, so consecutive requests reach different
 * nodes. A restart on the same data directory is a new pair of nodes on the same NATS server.
 */
import http from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startNatsCluster, type NatsCluster } from './nats-server.js';
import { ROOT } from '../../src/devkit/dwell-serve.js';
import { tempDir } from '../../src/devkit/temp-dir.js';
import { startNode, waitReady, type Running } from './node.js';
import { publishStore } from '../../src/venues/import/publish.js';

let nats: Promise<NatsCluster> | null = null;

/**
 * This process's NATS server: one for all the tests of a file, as one cluster serves many restarts.
 * Cluster nodes serve the venue store published to the cluster: the bundled sample, as the
 * README's `dwell import … --publish` would.
 */
export function sharedNats(): Promise<NatsCluster> {
  // Detached: the test process exits when its tests are done, and kills the server as it goes.
  nats ??= startNatsCluster(1).then(async (c) => {
    c.detach();
    await publishSample(c);
    return c;
  });
  return nats;
}

/** Publishes the bundled Monaco store to a cluster: its nodes are not ready until one is published. */
export async function publishSample(c: NatsCluster): Promise<void> {
  const venues = path.join(ROOT, 'data', 'monaco');
  await publishStore(c.urls.split(','), venues, readFileSync(path.join(venues, 'CURRENT'), 'utf8').trim(), true);
}

export async function startPair(env: Record<string, string>, opts: { ready?: boolean; args?: string[] }): Promise<Running> {
  const { urls } = await sharedNats();
  const dataDir = env.DWELL_DATA_DIR ?? tempDir();
  process.once('exit', () => rmSync(dataDir + '-b', { recursive: true, force: true }));
  const [a, b] = await Promise.all([
    startNode({ ...env, DWELL_STATE: urls, DWELL_DATA_DIR: dataDir }, { ...opts, ready: false }),
    startNode({ ...env, DWELL_STATE: urls, DWELL_DATA_DIR: dataDir + '-b' }, { ...opts, ready: false }),
  ]);
  const nodes = [a, b];
  let turn = 0;
  const proxy = http.createServer((req, res) => {
    const node = nodes[turn++ % nodes.length];
    const up = http.request({ host: '127.0.0.1', port: node.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  // Both nodes' lines, in arrival order, where a test reads logs.
  b.proc.stderr!.on('data', () => { while (b.logs.length) a.logs.push(b.logs.shift()!); });
  if (opts.ready !== false) await Promise.all(nodes.map((n) => waitReady(n.url, 60_000)));
  return {
    url, port, proc: a.proc, dataDir: a.dataDir, logs: a.logs, nodes,
    async stop(signal) {
      const [code] = await Promise.all(nodes.map((n) => n.stop(signal)));
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
      return code;
    },
  };
}
