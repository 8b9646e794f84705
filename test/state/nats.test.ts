/**
 * The state contract (contract.ts) against NATS JetStream: two connections (two nodes) to a
 * nats-server of its own (NATS_N=3: a three-server cluster, replicas 3).
 *
 * One server by default: Debian's nats-server 2.9.10 does not serialise conditional writes on
 * replicated (R3) streams (nats-io/nats-server#4320, fixed in 2.9.21): two writes expecting the
 * same revision may both be accepted, so the "no lost update" cases fail there (3 of 20
 * concurrent updates kept, measured here). On one server, and on 2.9.21 or later, they hold.
 */
import { openNatsState } from '../../src/state/nats/kit.js';
import { clusterReplays } from '../../src/server/replays.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { stateContract, type Node } from './contract.js';

stateContract(async () => {
  const nats = await startNatsCluster(Number(process.env.NATS_N ?? 1));
  const servers = nats.nodes.map((n) => n.url);
  const [ka, kb] = await Promise.all([openNatsState(servers), openNatsState(servers)]);
  const node = (k: typeof ka): Node => ({ apps: k.apps, users: k.users, learned: k.learned, fences: k.fences, replays: clusterReplays(k.replay), lease: k.lease });
  return {
    kind: 'nats', a: node(ka), b: node(kb),
    async close() { await ka.close(); await kb.close(); await nats.stop(); },
  };
});
