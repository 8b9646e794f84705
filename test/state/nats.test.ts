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
import { execFileSync } from 'node:child_process';
import { NATS_SERVER, startNatsCluster } from '../helpers/nats-server.js';
import { stateContract } from './contract.js';

const SERVERS = Number(process.env.NATS_N ?? 1);
/** The fix of nats-io/nats-server#4320 (conditional writes on R3 streams) shipped in 2.9.21. */
const FIXED = [2, 9, 21];
const version = (execFileSync(NATS_SERVER, ['--version'], { encoding: 'utf8' }).match(/v(\d+)\.(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
const fixed = version.length === 3 && version.reduce((c, v, i) => c || v - FIXED[i], 0) >= 0;
const where = SERVERS === 1 ? 'one nats-server, replicas 1' : `${SERVERS} nats-servers v${version.join('.')}, replicas ${Math.min(3, SERVERS)}`;
const unkept = SERVERS >= 3 && !fixed ? `nats-server v${version.join('.')} accepts two writes expecting one revision on R3 (nats-io/nats-server#4320, fixed in 2.9.21)` : undefined;

stateContract(async () => {
  const nats = await startNatsCluster(SERVERS);
  const servers = nats.nodes.map((n) => n.url);
  const [ka, kb] = await Promise.all([openNatsState(servers), openNatsState(servers)]);
  return {
    a: ka, b: kb,
    async close() { await ka.close(); await kb.close(); await nats.stop(); },
  };
}, { where, unkept });
