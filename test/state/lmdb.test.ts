/**
 * The state contract (contract.ts) on the embedded engine's production kit (server/kit-lmdb.ts,
 * as server/state.ts opens it for the HTTP thread): two openings of one data directory in this
 * process, the one process that may own it (data-dir-lock.ts). Its watches are told the writes of
 * every opening in the process; what the engine promises less by design (one owner: leases, and
 * replay claims another opening reads when it opens) is named in the tests it concerns.
 * embedded.test.ts runs the same promises across threads, as the detection workers meet them.
 */
import { openLmdbState, type LmdbKit } from '../../src/server/kit-lmdb.js';
import { tempDir } from '../helpers/server.js';
import { stateContract } from './contract.js';

stateContract(async () => {
  const dir = tempDir();
  const a = await openLmdbState(dir);
  const kits: LmdbKit[] = [a, await openLmdbState(dir)];
  return {
    a, b: kits[1],
    async restartB() { const k = await openLmdbState(dir); kits.push(k); return k; },
    async close() { for (const k of kits) await k.close(); },
  };
}, { where: 'LMDB, two openings of one data directory in one process', oneOwner: 'embedded: one process owns the data directory' });
