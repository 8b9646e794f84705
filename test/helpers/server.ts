/**
 * Starts the real `dwell serve` as a child process on an ephemeral port, the way an operator
 * would, and talks to it over HTTP. Nothing of ours is mocked. One node is node.ts (on the
 * development kit's launcher, src/devkit/dwell-serve.ts, shared with the benchmarks); a cluster
 * pair is cluster.ts.
 */
import { startNode, type Running } from './node.js';

export { freePort } from '../../src/devkit/child.js';
export { CLI, ROOT, serveRefusal } from '../../src/devkit/dwell-serve.js';
export { tempDir } from '../../src/devkit/temp-dir.js';
export { ADMIN_TOKEN, waitReady, type Running } from './node.js';

/**
 * `args` follow `dwell serve` on its command line. With DWELL_TEST_CLUSTER=1 (npm run
 * test:cluster) and no DWELL_STATE of the test's own: two nodes on NATS behind a round-robin
 * proxy (cluster.ts), answering as one.
 */
export async function startDwell(env: Record<string, string> = {}, opts: { ready?: boolean; args?: string[] } = {}): Promise<Running> {
  if (process.env.DWELL_TEST_CLUSTER === '1' && env.DWELL_STATE === undefined) {
    const { startPair } = await import('./cluster.js');
    return startPair(env, opts);
  }
  return startNode(env, opts);
}
