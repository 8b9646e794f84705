/**
 * The beacon store's contract (beacons-contract.ts) in cluster mode: two nodes' stores, each on
 * its own connection, over one nats-server started here (one server: see nats.test.ts on
 * nats-server 2.9.10 and replicated conditional writes).
 */
import { openNatsState } from '../../src/state/nats/kit.js';
import { ClusterBeaconStore } from '../../src/beacons/cluster-store.js';
import { startNatsCluster } from '../helpers/nats-server.js';
import { beaconContract } from './beacons-contract.js';

beaconContract(async () => {
  const nats = await startNatsCluster(1);
  const servers = nats.nodes.map((n) => n.url);
  const [ka, kb] = await Promise.all([openNatsState(servers), openNatsState(servers)]);
  const [a, b] = [new ClusterBeaconStore(ka.beacons), new ClusterBeaconStore(kb.beacons)];
  await Promise.all([a.ready, b.ready]);
  return {
    kind: 'nats', a, b,
    async close() { await a.close(); await b.close(); await ka.close(); await kb.close(); await nats.stop(); },
  };
});
