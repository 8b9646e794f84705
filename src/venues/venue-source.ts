/**
 * Where a node's venue store comes from: the local store root of DWELL_VENUES (one node), or in
 * cluster mode the snapshots published to the cluster, fetched into the data directory
 * (snapshot-follow.ts). Either way the server loads and watches one local root.
 */
import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { followSnapshots, snapshotRoot } from './snapshot-follow.js';

export interface VenueSource { root: string; close(): Promise<void> }

export async function openVenueSource(config: Pick<Config, 'state' | 'venues' | 'dataDir' | 'storePollMs'>): Promise<VenueSource> {
  if (config.state.kind === 'lmdb') return { root: config.venues, close: async () => {} };
  const { VenueSnapshots } = await import('../state/nats/venue-snapshots.js'); // cluster mode only
  const snapshots = await VenueSnapshots.open(config.state.servers);
  const root = snapshotRoot(config.dataDir);
  await mkdir(root, { recursive: true });
  const stop = followSnapshots(snapshots, root, config.storePollMs);
  return { root, close: async () => { stop(); await snapshots.close(); } };
}
