/** The beacon store's contract (beacons-contract.ts) against LMDB: one process owns it, so both "nodes" are it. */
import { LmdbBeaconStore } from '../../src/beacons/lmdb-store.js';
import { tempDir } from '../helpers/server.js';
import { beaconContract } from './beacons-contract.js';

beaconContract(async () => {
  const store = new LmdbBeaconStore(tempDir());
  return { kind: 'lmdb', a: store, b: store, close: () => store.close() };
});
