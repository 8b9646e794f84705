/**
 * `dwell import … --publish <NATS URLs>`: the store version just built is uploaded to the
 * cluster's object store (state/nats/venue-snapshots.ts); every node in cluster mode fetches it
 * and switches to it without a restart (venues/snapshot-follow.ts).
 */
import { join } from 'node:path';
import { log } from '../../log.js';
import { VenueSnapshots, type SnapshotManifest } from '../../state/nats/venue-snapshots.js';

export async function publishStore(servers: readonly string[], out: string, version: string, quiet = false): Promise<SnapshotManifest> {
  const snapshots = await VenueSnapshots.open(servers, 'dwell-import');
  try {
    const m = await snapshots.publish(version, join(out, version));
    if (!quiet) log.info('venue store published', { version, files: m.files.length });
    return m;
  } finally {
    await snapshots.close();
  }
}
