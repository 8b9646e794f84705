/**
 * The beacon store's contract (beacons-contract.ts) in cluster mode: two nodes' stores, each on
 * its own connection, over one nats-server started here (one server: see nats.test.ts on
 * nats-server 2.9.10 and replicated conditional writes). Then a detection thread's copy
 * (beacons/mirror.ts): its index follows every write, change by change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openNatsState, type NatsKit } from '../../src/state/nats/kit.js';
import { ClusterBeaconStore } from '../../src/beacons/cluster-store.js';
import { BeaconMirror } from '../../src/beacons/mirror.js';
import { beaconKey } from '../../src/schemas/beacon.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats-server.js';
import { until } from '../helpers/until.js';
import { beaconContract } from './beacons-contract.js';

let nats: NatsCluster, ka: NatsKit;
beaconContract(async () => {
  nats = await startNatsCluster(1);
  const servers = nats.nodes.map((n) => n.url);
  let kb: NatsKit;
  [ka, kb] = await Promise.all([openNatsState(servers), openNatsState(servers)]);
  const [a, b] = [new ClusterBeaconStore(ka.beacons), new ClusterBeaconStore(kb.beacons)];
  await Promise.all([a.ready, b.ready]);
  return {
    kind: 'nats', a, b,
    async close() { await a.close(); await b.close(); await ka.close(); await kb.close(); await nats.stop(); },
  };
});

test('a detection thread\'s index follows creates, moves and deletes made through another node', async () => {
  await until('the contract\'s cluster', () => ka);
  const store = new ClusterBeaconStore(ka.beacons);
  const kc = await openNatsState(nats.nodes.map((n) => n.url));
  const copy = new BeaconMirror(kc.beacons);
  try {
    await copy.ready;
    const uuid = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e';
    const one = await store.create('ak_view', { uuid, major: 5, minor: 1, venue_id: 'n1', location: null, tag: null });
    await store.create('ak_view', { uuid, major: 5, minor: 2, venue_id: 'n1', location: { lat: 43.7, long: 7.4 }, tag: null });
    await until('the copy to index both', () => copy.view('ak_view')?.atVenue('n1') === 2);
    assert.deepEqual(copy.view('ak_view')!.find(beaconKey(uuid, 5, 2)), { venueId: 'n1', lat: 43.7, lon: 7.4 });
    await store.update('ak_view', one.id, { minor: 3, venue_id: 'n2' });
    // A move is two writes (the new key, then the old one removed): the copy sees them one after the other.
    await until('the copy to follow the move', () => {
      const v = copy.view('ak_view');
      return v?.find(beaconKey(uuid, 5, 3))?.venueId === 'n2' && v.find(beaconKey(uuid, 5, 1)) === undefined;
    });
    const view = copy.view('ak_view')!;
    assert.deepEqual([view.atVenue('n1'), view.atVenue('n2')], [1, 1]);
    assert.equal(await store.deleteApp('ak_view'), 2);
    await until('the copy to drop the app', () => copy.view('ak_view') === undefined);
    assert.equal(copy.version('ak_view'), 0);
  } finally {
    copy.stop();
    await store.close();
    await kc.close();
  }
});
