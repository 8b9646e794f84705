/**
 * Where a node's venue store comes from: the local store root of DWELL_VENUES (one node), or in
 * cluster mode the snapshots published to the cluster, fetched into the data directory
 * (snapshot-follow.ts). Either way the server loads and watches one local root. The state engine's
 * opener picks one (server/state-embedded.ts, state-cluster.ts); nothing here asks which runs.
 */
import { mkdir } from 'node:fs/promises';
import { followSnapshots, snapshotRoot } from './snapshot-follow.js';

export interface VenueSource { root: string; close(): Promise<void> }

/** The store root as it is, DWELL_VENUES. */
export function localVenues(root: string): VenueSource {
  return { root, close: async () => {} };
}

/** The cluster's published snapshots, fetched into `dataDir` and followed every `pollMs`. */
export async function followedVenues(servers: readonly string[], dataDir: string, pollMs: number): Promise<VenueSource> {
  const { VenueSnapshots } = await import('../state/nats/venue-snapshots.js'); // cluster mode only
  const snapshots = await VenueSnapshots.open(servers);
  const root = snapshotRoot(dataDir);
  await mkdir(root, { recursive: true });
  const stop = followSnapshots(snapshots, root, pollMs);
  return { root, close: async () => { stop(); await snapshots.close(); } };
}
